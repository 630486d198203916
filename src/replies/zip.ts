import { promisify } from 'node:util';
import { crc32, deflateRaw as deflateRawCb } from 'node:zlib';

const deflateRaw = promisify(deflateRawCb);

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** @defaultValue now */
  modified?: Date;
}

/** Largest size a plain (non-ZIP64) archive can describe. */
const MAX_ZIP32_BYTES = 0xffff_fffe;
const UTF8_FLAG = 0x0800;

/**
 * Writes a ZIP archive (deflate, or stored when deflate does not help). Enough for attaching a few
 * generated files; no ZIP64, so each entry and the archive stay under 4 GiB.
 */
export async function writeZip(entries: ZipEntry[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    if (entry.data.length > MAX_ZIP32_BYTES) throw new RangeError(`${entry.name} is too large for a ZIP without ZIP64`);
    const name = Buffer.from(entry.name, 'utf8');
    const deflated = await deflateRaw(entry.data, { level: 6 });
    const stored = deflated.length >= entry.data.length;
    const body = stored ? entry.data : deflated;
    const fields = {
      method: stored ? 0 : 8,
      crc: crc32(entry.data),
      compressed: body.length,
      size: entry.data.length,
      ...dosDateTime(entry.modified ?? new Date()),
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeCommon(local, 4, fields);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by: version 2.0
    writeCommon(central, 6, fields);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  if (offset + centralSize > MAX_ZIP32_BYTES) throw new RangeError('archive too large for a ZIP without ZIP64');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

interface CommonFields {
  method: number;
  crc: number;
  compressed: number;
  size: number;
  time: number;
  date: number;
}

/** The fields local and central headers share, from "version needed" to the sizes. */
function writeCommon(buf: Buffer, at: number, f: CommonFields): void {
  buf.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
  buf.writeUInt16LE(UTF8_FLAG, at + 2);
  buf.writeUInt16LE(f.method, at + 4);
  buf.writeUInt16LE(f.time, at + 6);
  buf.writeUInt16LE(f.date, at + 8);
  buf.writeUInt32LE(f.crc >>> 0, at + 10);
  buf.writeUInt32LE(f.compressed, at + 14);
  buf.writeUInt32LE(f.size, at + 18);
}

function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}
