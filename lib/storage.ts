import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from './ids';

/** The image formats accepted for upload, told apart by their leading bytes rather than by name or declared type. */
export const IMAGE_TYPES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
} as const;
export type ImageExt = keyof typeof IMAGE_TYPES;

/** Bytes needed to recognise any of the formats. */
export const SNIFF_BYTES = 12;

/**
 * PNG, JPEG, GIF and WebP by magic bytes. Anything else is refused, SVG included: it is XML that
 * can carry script, and it would be served from our own origin.
 */
export function sniffImage(head: Buffer): ImageExt | null {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpg';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

/**
 * Where multipart files wait while their request runs: inside DATA_DIR, not the system's tmp. The
 * router deletes each after its request (api/router.ts removeUploadsAfter).
 */
export const uploadTempDir = (dataDir: string) => path.join(dataDir, 'uploads-tmp');

/**
 * Removes waiting files older than `olderThanMs`: what a process killed mid-request left behind.
 * Age, not "everything", because replicas sharing the directory may be receiving files right now.
 */
export async function removeStaleUploads(dataDir: string, olderThanMs = 3_600_000, now = Date.now()): Promise<number> {
  const dir = uploadTempDir(dataDir);
  let removed = 0;
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    const file = path.join(dir, name);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (stat?.isFile() && now - stat.mtimeMs > olderThanMs) {
      await fs.promises.rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}

/** Stored names are random, so a URL cannot be guessed from another; this is the only shape ever served. */
export const STORED_NAME = /^[0-9A-Za-z]{20,64}\.(png|jpg|gif|webp)$/;

/** An image as the store hands it back. */
export interface StoredImage {
  body: Buffer | NodeJS.ReadableStream;
  size: number;
}

/**
 * Where uploaded images live. Every API replica must reach the same store, so none of them is a
 * replica's own disk: Postgres by default, an S3-compatible bucket by configuration.
 */
export interface ImageStore {
  /** Stores the file under a fresh random name (STORED_NAME) and returns that name. */
  putFile(projectId: string, sourcePath: string, ext: ImageExt): Promise<string>;
  /** The image, or null. Names not matching STORED_NAME are never looked up. */
  open(projectId: string, name: string): Promise<StoredImage | null>;
  removeProject(projectId: string): Promise<void>;
}

/** A fresh unguessable stored name. */
export const newStoredName = (ext: ImageExt) => `${randomBase62(18)}.${ext}`;
