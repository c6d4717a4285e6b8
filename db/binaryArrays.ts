/**
 * A `text[]` query parameter in Postgres' binary format. node-postgres sends a Buffer parameter as
 * binary, so Postgres takes each element as is; the default text form is an array literal Postgres
 * must scan character by character for quotes and escapes, which for a campaign batch's rendered
 * bodies (about 2 MB) costs more than the rows' insert itself. Use it as `?::text[]`.
 */
export function binaryTextArray(values: ReadonlyArray<string | null>): Buffer {
  const lengths = values.map((v) => (v === null ? -1 : Buffer.byteLength(v, 'utf8')));
  const size = lengths.reduce((n, length) => n + 4 + Math.max(length, 0), 20);
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(values.includes(null) ? 1 : 0, 4); // has nulls
  out.writeUInt32BE(TEXT_OID, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  values.forEach((v, i) => {
    at = out.writeInt32BE(lengths[i], at);
    if (v !== null) at += out.write(v, at, 'utf8');
  });
  return out;
}

const TEXT_OID = 25;
