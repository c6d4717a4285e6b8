import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';

export interface TlsPair {
  key: Buffer | string;
  cert: Buffer | string;
}

/**
 * The submission server's certificate: SUBMISSION_TLS_CERT/KEY when set. Unset (development), a
 * self-signed pair for this host, generated once and kept under DATA_DIR so a client that was told
 * to trust it keeps working across restarts. Clients then have to skip verification or trust that
 * file (docs/smtp.md); production sets real files.
 */
export async function submissionTls(config: Pick<Config, 'submission' | 'dataDir' | 'production'>, log?: Logger): Promise<TlsPair> {
  const files = config.submission.tls;
  if (files) return { cert: fs.readFileSync(files.certFile), key: fs.readFileSync(files.keyFile) };
  const dir = path.resolve(config.dataDir, 'submission-tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) return { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) };
  const host = os.hostname();
  const pems = await generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: host },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile, pems.cert);
  (config.production ? log?.warn : log?.info)?.call(
    log,
    { certFile },
    `submission server: self-signed certificate generated at ${certFile} (set SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY for a real one)`,
  );
  return { cert: pems.cert, key: pems.private };
}
