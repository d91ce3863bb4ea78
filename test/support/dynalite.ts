import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';

/** A DynamoDB-compatible server (dynalite, in memory) on 127.0.0.1 at a port chosen at run time. */
export interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  /** Creates a fresh incident table (pk: string) and returns its name. */
  createTable(): Promise<string>;
  stop(): Promise<void>;
}

let tableCount = 0;

export async function startDynalite(): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Node's server closes an idle keep-alive socket after 5 s while the SDK's agent may be sending on
  // it: the request fails with ECONNRESET (seen in the fuzz and storm suites, which pause between
  // runs). The server keeps idle sockets longer than any test, so the client is the side that closes.
  server.keepAliveTimeout = 10 * 60_000;
  server.headersTimeout = 10 * 60_000 + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const tables: string[] = [];
  return {
    endpoint,
    client,
    doc,
    async createTable() {
      const name = `incidents-${++tableCount}`;
      await client.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      tables.push(name);
      return name;
    },
    async stop() {
      for (const name of tables) await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
