import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { IncidentTable } from '../../../lib/constructs/incident-table';
import { nagFindings } from './support';

function synth(props?: ConstructorParameters<typeof IncidentTable>[2]) {
  const stack = new Stack(new App(), 'Test');
  const incidents = new IncidentTable(stack, 'Incidents', props);
  return { stack, incidents, template: Template.fromStack(stack) };
}

describe('IncidentTable', () => {
  it('keys items by pk, on demand, encrypted, with point-in-time recovery and expiresAt as TTL', () => {
    const { template } = synth();
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('keeps the table when the stack is deleted, unless told not to', () => {
    synth().template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    synth({ retain: false }).template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });

  it('keeps its logical id, so a refactor never replaces the incident history', () => {
    expect(Object.keys(synth().template.findResources('AWS::DynamoDB::Table'))).toEqual(['IncidentsTable7D5FD327']);
  });

  it('exposes the table for grants', () => {
    const { incidents, stack } = synth();
    expect(stack.resolve(incidents.table.tableName)).toEqual({ Ref: 'IncidentsTable7D5FD327' });
  });

  it('has no unsuppressed cdk-nag AwsSolutions finding', () => {
    expect(nagFindings(synth().stack, 'Incidents')).toEqual([]);
  });
});
