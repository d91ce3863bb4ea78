import { Aggregator } from '../../../lambdas/core/incidents/aggregate';
import { classify } from '../../../lambdas/core/recognise/classify';
import { buildFinding, type Finding } from '../../../lambdas/core/findings/finding';
import { parseMessage } from '../../../lambdas/core/parse/parse-message';
import {
  chatNotificationOf,
  emailTextOf,
  MAX_SNS_MESSAGE_BYTES,
  resolvedTextOf,
  snsNotificationOf,
  subjectOf,
} from '../../../lambdas/core/findings/render-notification';

function findingFrom(lines: string[], cluster = 'prod'): Finding {
  const aggregator = new Aggregator(cluster);
  lines.forEach((line, i) => aggregator.addAll(classify(parseMessage(line, { logStream: 's', eventId: String(i) })!)));
  return buildFinding(aggregator.incidentsFound()[0]!, { account: '111122223333', region: 'us-west-2' });
}

const subnetLine = (subnet: string, extra = '') =>
  `{"level":"ERROR","time":"2026-01-01T00:00:00Z","message":"failed launching nodeclaim","error":"InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '${subnet}'${extra}"}`;

describe('notifications', () => {
  it('builds the Subject from severity, cluster, what and where, printable ASCII within 60 characters', () => {
    const finding = findingFrom([subnetLine('subnet-0783288fba3453a60', ' \\r\\nBcc: victim@example.com ✓')]);
    expect(subjectOf(finding)).toBe('CRITICAL prod: subnets out of IPs subnet-0783288fba3453a60');
    const long = findingFrom([subnetLine('subnet-0783288fba3453a60')], 'c'.repeat(200));
    expect(subjectOf(long)).toMatch(/^[\x20-\x7e]{1,60}$/);
  });

  it('writes an email with the cause, the commands and the evidence, free of control characters', () => {
    const text = emailTextOf(findingFrom([subnetLine('subnet-0783288fba3453a60', '\\u001b[31m')]));
    expect(text).toContain('Subnets are out of free IP addresses');
    expect(text).toContain('$ aws ec2 describe-subnets --subnet-ids subnet-0783288fba3453a60');
    expect(text).toContain('Finding ');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('writes a chat custom notification in the thread of its cluster’s subnets, with log text unable to mention or link', () => {
    const finding = findingFrom([
      subnetLine('subnet-0783288fba3453a60', ' @here <!channel> [x](https://evil.example)'),
    ]);
    const chat = chatNotificationOf(finding) as {
      version: string;
      source: string;
      content: { textType: string; description: string };
      metadata: { threadId: string };
    };
    expect(chat).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown' },
      // Subnet exhaustion shares its cluster's thread with the headroom warning (notices.test.ts).
      metadata: { threadId: `subnet-ips-${finding.account}-${finding.cluster}` },
    });
    const rendered = JSON.stringify(chat);
    expect(rendered).not.toContain('@here');
    expect(rendered).not.toContain('](https://evil');
  });

  it('publishes one MessageStructure=json message with default, email and https, and filterable attributes', () => {
    const finding = findingFrom([subnetLine('subnet-0783288fba3453a60')]);
    const sns = snsNotificationOf(finding);
    const message = JSON.parse(sns.message) as Record<string, string>;
    expect(Object.keys(message).sort()).toEqual(['default', 'email', 'https']);
    expect(JSON.parse(message.default!)).toEqual(finding);
    expect(sns.attributes).toEqual({
      rule: 'subnet-ip-exhaustion',
      severity: 'critical',
      cluster: 'prod',
      status: 'open',
    });
  });

  it('stays under the SNS size limit however large the finding, keeping the finding', () => {
    const huge = 'x'.repeat(200_000);
    const finding = findingFrom([subnetLine('subnet-0783288fba3453a60', huge)]);
    const bloated: Finding = {
      ...finding,
      evidence: [0, 1, 2].map((i) => ({ ...finding.evidence[0]!, message: `${i}${huge}` })),
      diagnosis: huge,
    };
    const sns = snsNotificationOf(bloated);
    expect(Buffer.byteLength(sns.message, 'utf8')).toBeLessThanOrEqual(MAX_SNS_MESSAGE_BYTES);
    expect(JSON.parse(JSON.parse(sns.message).default).rule).toBe('subnet-ip-exhaustion');
  });
});

describe('resolved notices', () => {
  const finding = { ...findingFrom([subnetLine('subnet-0783288fba3453a60')]), status: 'resolved' as const };
  it.each<[string, string | undefined, string[], string[]]>([
    [
      'quiet for the resolve window (the sweep)',
      undefined,
      ['then nothing more was seen for the resolve window'],
      ['*Resolved*: nothing more seen since'],
    ],
    [
      'stated over by the cluster (the poller)',
      'NodeClaim default-x7k2p: Launched=True',
      ["then the cluster's state no longer showed it", '  now      NodeClaim default-x7k2p: Launched=True'],
      ['*Resolved*: the cluster now says NodeClaim default-x7k2p: Launched=True.'],
    ],
  ])('say why the incident is over when %s', (_, said, email, chat) => {
    const notice = { kind: 'resolved' as const, generation: 2, ...(said === undefined ? {} : { changed: said }) };
    const text = emailTextOf(finding, notice);
    expect(text).toBe(resolvedTextOf(finding, said));
    for (const line of email) expect(text).toContain(line);
    const description = String((chatNotificationOf(finding, notice).content as { description: string }).description);
    for (const line of chat) expect(description).toContain(line);
  });

  it('removes control characters from what the cluster says', () => {
    expect(resolvedTextOf(finding, 'NodeClaim a\u001b[31m: Launched=True\r\nBcc: x')).not.toMatch(
      /[\u0000-\u0009\u000b-\u001f]/,
    );
  });
});
