import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

/**
 * Local receivers for alert channels: an HTTP receiver that records what Slack, Teams or a generic
 * webhook endpoint would get (and can hold a request unanswered, to kill a worker mid-delivery), and an
 * SMTP sink (the npm `smtp-server`) that records each message it accepts.
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpReceiver {
  url: string;
  received: ReceivedRequest[];
  /** While set, requests are recorded but not answered (until release). */
  hold: boolean;
  /** Answers every held request with `status`. */
  release(status?: number): void;
  /** What the n-th request (from 1) is answered. */
  answer: (n: number) => number;
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const held: ((status: number) => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const reply = (status: number) => {
        response.statusCode = status;
        response.end(status >= 300 ? 'receiver says no' : 'ok');
      };
      if (receiver.hold) held.push(reply);
      else reply(receiver.answer(receiver.received.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: HttpReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: [],
    hold: false,
    answer: () => 200,
    release: (status = 200) => held.splice(0).forEach((reply) => reply(status)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

/**
 * What a Standard Webhooks receiver does with the `standardwebhooks` library: verify the signature over
 * the raw body (throws when it does not match or the timestamp is outside 5 minutes), then parse it.
 */
export function verifyStandardWebhook(secret: string, request: ReceivedRequest): unknown {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  return new Webhook(secret).verify(request.body, headers);
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>?tls=off`, as SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}?tls=off`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
