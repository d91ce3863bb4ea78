import { parseConfig, type ClusterConfig } from '../../../contracts/config';
import { functionSettingsOf, type FunctionSettings } from '../../../contracts/settings';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * A minimal stack for one construct: bundling off (CI runs a real bundled synth), and the table,
 * encrypted topic and bus every function publishes to, as plain resources whose logical ids the
 * assertions can name (`Table`, `Topic`, `TopicKey`, `Bus`).
 */
export function constructStack() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
  const topicKey = new Key(stack, 'TopicKey', { enableKeyRotation: true });
  const topic = new Topic(stack, 'Topic', { masterKey: topicKey, enforceSSL: true });
  const eventBus = new EventBus(stack, 'Bus', { eventBusName: 'findings' });
  return { app, stack, outputs: { table, topic, topicKey, eventBus } };
}

export type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
};

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The statements of every policy attached to the role whose logical id starts with `rolePrefix`. */
export function statementsOf(template: Template, rolePrefix: string): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Statement[] } };
  }>;
  const attached = policies.filter((p) => p.Properties.Roles.some((r) => r.Ref.startsWith(rolePrefix)));
  if (attached.length === 0) throw new Error(`no policy for a role ${rolePrefix}…`);
  return attached.flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** Every action the role may take, sorted. */
export const actionsOf = (statements: Statement[]): string[] =>
  statements.flatMap((s) => asList(s.Action)).sort((a, b) => a.localeCompare(b));

/** The statement with this Sid (exactly one). */
export function statement(statements: Statement[], sid: string): Statement {
  const found = statements.filter((s) => s.Sid === sid);
  if (found.length !== 1) throw new Error(`expected one statement ${sid}, found ${found.length}`);
  return found[0]!;
}

/** The resources of a statement, as JSON strings with the pseudo-parameters left symbolic. */
export const resourcesOf = (s: Statement): string[] => asList(s.Resource).map((r) => JSON.stringify(r));

/**
 * The unsuppressed cdk-nag errors and warnings of the packs already added to the stack whose rule id
 * matches `rules` (a regex source, e.g. `(AwsSolutions|Serverless)`), one line each.
 */
export function unsuppressedFindings(stack: Stack, rules = 'AwsSolutions'): string[] {
  const annotations = Annotations.fromStack(stack);
  const pattern = Match.stringLikeRegexp(`${rules}-.*`);
  return [...annotations.findError('*', pattern), ...annotations.findWarning('*', pattern)].map(
    (f) => `${f.id}: ${String(f.entry.data).split('\n')[0]}`,
  );
}

/** Runs cdk-nag's AwsSolutions pack on the stack and returns the unsuppressed findings under construct `id`. */
export function nagFindings(stack: Stack, id: string): string[] {
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  return unsuppressedFindings(stack).filter((f) => f.startsWith(`/${stack.stackName}/${id}/`));
}

/** The one resource of `type` whose logical id starts with `prefix`. */
export function resourceOf(template: Template, type: string, prefix: string): { Properties: Record<string, unknown> } {
  const found = Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one ${type} ${prefix}…, found ${found.length}`);
  return found[0]![1] as { Properties: Record<string, unknown> };
}

/**
 * The settings the stack would give the functions for this configuration (clusters get a log group
 * each when they name none), validated and defaulted by the configuration schema.
 */
export function settingsFor(config: {
  clusters: Array<Omit<ClusterConfig, 'logGroups'> & { logGroups?: string[] }>;
  [key: string]: unknown;
}): FunctionSettings {
  const clusters = config.clusters.map((c) => ({ logGroups: [`/eks/${c.name}/karpenter`], ...c }));
  return functionSettingsOf(parseConfig({ ...config, clusters }, 'test'));
}
