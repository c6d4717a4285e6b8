import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an S3-compatible store, path-style (`/<bucket>/<key>`): PutObject,
 * GetObject, DeleteObject and ListObjectsV2, enough for lib/s3ImageStore.ts driven by the real
 * @aws-sdk/client-s3. It checks that every request is signed with the expected access key.
 */
export interface S3Sink {
  url: string;
  bucket: string;
  objects: Map<string, { body: Buffer; contentType?: string }>;
  /** Requests refused for a missing or foreign signature. */
  unsigned: number;
  stop(): Promise<void>;
}

/** `aws-chunked` bodies: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n`, ending with a 0-size chunk and trailers. */
function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, eol).toString('latin1').split(';')[0], 16);
    if (!size) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

const xmlError = (res: http.ServerResponse, status: number, code: string) =>
  res
    .writeHead(status, { 'Content-Type': 'application/xml' })
    .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);

export async function startS3Sink(opts: { bucket: string; accessKeyId: string }): Promise<S3Sink> {
  const objects = new Map<string, { body: Buffer; contentType?: string }>();
  const sink = { unsigned: 0 } as S3Sink;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (!String(req.headers.authorization ?? '').includes(`Credential=${opts.accessKeyId}/`)) {
        sink.unsigned++;
        return xmlError(res, 403, 'AccessDenied');
      }
      const url = new URL(req.url!, 'http://sink');
      const [, bucket, ...rest] = url.pathname.split('/');
      const key = decodeURIComponent(rest.join('/'));
      if (bucket !== opts.bucket) return xmlError(res, 404, 'NoSuchBucket');
      if (req.method === 'GET' && !key && url.searchParams.get('list-type') === '2') {
        const prefix = url.searchParams.get('prefix') ?? '';
        const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
        const body = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${keys.length}</KeyCount><IsTruncated>false</IsTruncated>${keys
          .map((k) => `<Contents><Key>${k}</Key><Size>${objects.get(k)!.body.length}</Size></Contents>`)
          .join('')}</ListBucketResult>`;
        return res.writeHead(200, { 'Content-Type': 'application/xml' }).end(body);
      }
      if (req.method === 'PUT' && key) {
        const raw = Buffer.concat(chunks);
        const chunked =
          String(req.headers['content-encoding'] ?? '').includes('aws-chunked') || String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
        objects.set(key, { body: chunked ? decodeChunked(raw) : raw, contentType: req.headers['content-type'] });
        return res.writeHead(200, { ETag: '"sink"' }).end();
      }
      if (req.method === 'GET' && key) {
        const o = objects.get(key);
        if (!o) return xmlError(res, 404, 'NoSuchKey');
        return res.writeHead(200, { 'Content-Type': o.contentType ?? 'application/octet-stream', 'Content-Length': o.body.length }).end(o.body);
      }
      if (req.method === 'DELETE' && key) {
        objects.delete(key);
        return res.writeHead(204).end();
      }
      xmlError(res, 400, 'NotImplemented');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  Object.assign(sink, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bucket: opts.bucket,
    objects,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
  return sink;
}
