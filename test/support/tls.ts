import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private CA and a server certificate it signed for 127.0.0.1 (made with the openssl command). */
export interface PrivateCa {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export function privateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'zw-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=zonewise test CA',
    );
    run(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    );
    const extensions = join(dir, 'san.ext');
    execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\n' > ${extensions}`]);
    run(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      extensions,
    );
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    return { caPem: read('ca.pem'), certPem: read('server.pem'), keyPem: read('server.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An https server with the CA's certificate, forwarding every request to `upstream` (an http URL). */
export async function startTlsProxy(ca: PrivateCa, upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(upstream);
  const server = createServer({ cert: ca.certPem, key: ca.keyPem }, (req, res) => {
    const options: RequestOptions = {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    };
    const forward = httpRequest(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
