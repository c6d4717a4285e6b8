import fs from 'node:fs';
import { S3Client, PutObjectCommand, GetObjectCommand, ListObjectsV2Command, DeleteObjectCommand, NoSuchKey } from '@aws-sdk/client-s3';
import type { UploadStoreConfig } from './config';
import { IMAGE_TYPES, ImageExt, ImageStore, newStoredName, STORED_NAME, StoredImage } from './storage';

type S3Config = Extract<UploadStoreConfig, { store: 's3' }>;

/**
 * Uploaded images in an S3-compatible bucket (AWS S3, MinIO, R2, …) under `<projectId>/<name>`.
 * Credentials come from S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY, or the SDK's own chain when unset.
 */
export class S3ImageStore implements ImageStore {
  private readonly client: S3Client;

  constructor(private readonly config: S3Config) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      // Checksums only where S3 requires them: many S3-compatible stores refuse the SDK's default
      // streaming checksum trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(config.accessKeyId ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey! } } : {}),
    });
  }

  async putFile(projectId: string, sourcePath: string, ext: ImageExt): Promise<string> {
    const name = newStoredName(ext);
    const { size } = await fs.promises.stat(sourcePath);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: `${projectId}/${name}`,
        Body: fs.createReadStream(sourcePath),
        ContentLength: size,
        ContentType: IMAGE_TYPES[ext],
      }),
    );
    return name;
  }

  async open(projectId: string, name: string): Promise<StoredImage | null> {
    if (!STORED_NAME.test(name)) return null;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: `${projectId}/${name}` }));
      return { body: out.Body as NodeJS.ReadableStream, size: Number(out.ContentLength) };
    } catch (err: any) {
      if (err instanceof NoSuchKey || err?.name === 'NoSuchKey' || err?.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async removeProject(projectId: string): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: `${projectId}/`, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: o.Key }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  destroy(): void {
    this.client.destroy();
  }
}
