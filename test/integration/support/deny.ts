import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACCOUNT } from './moto';

/**
 * An EC2 endpoint on loopback that answers the listed actions as EC2 answers a caller whose role
 * lacks the permission — HTTP 403 with the EC2 error document and code `UnauthorizedOperation` — and
 * passes every other request through to the emulator. A function gets it as `AWS_ENDPOINT_URL_EC2`
 * (the SDK's per-service endpoint variable), so the denial goes through the bundled SDK's real
 * response parsing, as a real denial would; the emulator itself does not enforce IAM.
 */
export interface DenyingEndpoint {
  readonly endpoint: string;
  /** How many requests were denied, by action. */
  readonly denied: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

export async function denyingEc2Endpoint(upstream: string, actions: string[], role: string): Promise<DenyingEndpoint> {
  const denied = new Map<string, number>();
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const action = new URLSearchParams(body.toString()).get('Action') ?? '';
    if (actions.includes(action)) {
      denied.set(action, (denied.get(action) ?? 0) + 1);
      response.writeHead(403, { 'content-type': 'text/xml;charset=UTF-8' }).end(unauthorized(action, role));
      return;
    }
    const forwarded = await fetch(`${upstream}${request.url ?? '/'}`, {
      method: request.method,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'content-length') as Array<
          [string, string]
        >,
      ),
      body: body.length > 0 ? body : undefined,
    });
    const answer = Buffer.from(await forwarded.arrayBuffer());
    response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'text/xml' });
    response.end(answer);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    denied,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The EC2 error document of a denied call (EC2 API Reference, "Error codes": UnauthorizedOperation). */
function unauthorized(action: string, role: string): string {
  const message =
    `You are not authorized to perform this operation. User: arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${role} ` +
    `is not authorized to perform: ec2:${action} because no identity-based policy allows the ec2:${action} action.`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>${message}</Message></Error></Errors>` +
    '<RequestID>9b1c5a52-3f4e-4c3a-8d55-4f1d0c2b7e61</RequestID></Response>'
  );
}
