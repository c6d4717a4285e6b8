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

/**
 * Uploaded images on local disk under `<dataDir>/uploads/<projectId>/`. Every API replica must see
 * the same directory (a shared volume) for the public URLs to work behind a load balancer.
 */
export class LocalImageStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.resolve(dataDir, 'uploads');
  }

  private dir(projectId: string) {
    return path.join(this.root, projectId);
  }

  /** Copies an uploaded temp file in under a fresh random name; written to a temp name first so readers never see half a file. */
  async putFile(projectId: string, sourcePath: string, ext: ImageExt): Promise<string> {
    const dir = this.dir(projectId);
    await fs.promises.mkdir(dir, { recursive: true });
    const name = `${randomBase62(18)}.${ext}`;
    const partial = path.join(dir, `.${name}.partial`);
    await fs.promises.copyFile(sourcePath, partial);
    await fs.promises.rename(partial, path.join(dir, name));
    return name;
  }

  /** A readable file, or null. Callers pass names checked against STORED_NAME, so no path can leave the project's folder. */
  async open(projectId: string, name: string): Promise<{ stream: fs.ReadStream; size: number } | null> {
    if (!STORED_NAME.test(name)) return null;
    const file = path.join(this.dir(projectId), name);
    try {
      const stat = await fs.promises.stat(file);
      if (!stat.isFile()) return null;
      return { stream: fs.createReadStream(file), size: stat.size };
    } catch (err: any) {
      if (err?.code === 'ENOENT' || err?.code === 'ENOTDIR') return null;
      throw err;
    }
  }

  async removeProject(projectId: string): Promise<void> {
    await fs.promises.rm(this.dir(projectId), { recursive: true, force: true });
  }
}
