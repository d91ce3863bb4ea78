import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { Publisher } from '../../lambdas/adapters/publish';
import type { EventEntry } from '../../lambdas/core/findings/bus-entries';

const sns = mockClient(SNSClient);
const events = mockClient(EventBridgeClient);
const sleeps: number[] = [];
const publisher = () =>
  new Publisher(new SNSClient({ region: 'eu-west-1' }), new EventBridgeClient({ region: 'eu-west-1' }), {
    topicArn: 'arn:aws:sns:eu-west-1:111122223333:findings',
    eventBusName: 'karpenter-doctor',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
const entry = (findingId: string): EventEntry => ({
  findingId,
  source: 'io.karpenter-doctor',
  detailType: 'Karpenter Finding',
  detail: JSON.stringify({ findingId }),
  resources: [],
});
const allOk = (input: { Entries: PutEventsRequestEntry[] }) => ({
  FailedEntryCount: 0,
  Entries: input.Entries.map((_, i) => ({ EventId: `e${i}` })),
});

beforeEach(() => {
  sns.reset();
  events.reset();
  sleeps.length = 0;
});

describe('Publisher.putEvents', () => {
  it('sends at most 10 entries a request', async () => {
    events.on(PutEventsCommand).callsFake(allOk);

    const outcome = await publisher().putEvents(Array.from({ length: 23 }, (_, i) => entry(`f${i}`)));

    expect(events.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    expect(outcome.put).toHaveLength(23);
    expect(outcome.failed).toEqual([]);
    expect(events).toHaveReceivedCommandWith(PutEventsCommand, {
      Entries: expect.arrayContaining([
        expect.objectContaining({ EventBusName: 'karpenter-doctor', Source: 'io.karpenter-doctor' }),
      ]),
    });
  });

  it('gives up on an entry that keeps failing after the bounded attempts, with backoff, and reports it', async () => {
    events.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
      FailedEntryCount: 1,
      Entries: input.Entries.map((e) =>
        e.Detail?.includes('"f1"')
          ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
          : { EventId: 'ok' },
      ),
    }));

    const outcome = await publisher().putEvents([entry('f0'), entry('f1')]);

    expect(outcome.put).toEqual(['f0']);
    expect(outcome.failed).toEqual([{ findingId: 'f1', error: 'ThrottlingException' }]);
    expect(events.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries?.length)).toEqual([2, 1, 1, 1]);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('retries a whole request that threw', async () => {
    events.on(PutEventsCommand).rejectsOnce(new Error('socket hang up')).callsFake(allOk);

    const outcome = await publisher().putEvents([entry('f0'), entry('f1')]);

    expect(outcome.put.sort()).toEqual(['f0', 'f1']);
    expect(events).toHaveReceivedCommandTimes(PutEventsCommand, 2);
  });
});

describe('Publisher.publishNotification', () => {
  it('publishes with MessageStructure=json and the filter-policy attributes', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });

    await publisher().publishNotification({
      subject: '[karpenter-doctor] CRITICAL subnet-ip-exhaustion in prod (open)',
      message: JSON.stringify({ default: '{}', email: 'text' }),
      attributes: { rule: 'subnet-ip-exhaustion', severity: 'critical', cluster: 'prod', status: 'open' },
    });

    expect(sns).toHaveReceivedCommandWith(PublishCommand, {
      TopicArn: 'arn:aws:sns:eu-west-1:111122223333:findings',
      MessageStructure: 'json',
      Subject: '[karpenter-doctor] CRITICAL subnet-ip-exhaustion in prod (open)',
      MessageAttributes: {
        rule: { DataType: 'String', StringValue: 'subnet-ip-exhaustion' },
        severity: { DataType: 'String', StringValue: 'critical' },
        cluster: { DataType: 'String', StringValue: 'prod' },
        status: { DataType: 'String', StringValue: 'open' },
      },
    });
  });
});
