import net from 'node:net';

/** A raw SMTP client, one command and one complete reply at a time, for what nodemailer hides (limits, greetings). */
export interface SmtpDialog {
  /** The greeting (or the refusal sent instead of one). */
  greeting: string;
  command(line: string): Promise<string>;
  /** Sends a whole message after DATA's 354, ending it with `.` */
  data(raw: string): Promise<string>;
  closed: Promise<void>;
  close(): void;
}

export async function smtpDialog(port: number): Promise<SmtpDialog> {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: ((reply: string) => void) | null = null;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // A reply is complete at its last line, `NNN text` (continuation lines are `NNN-text`).
  const take = () => {
    const m = /(^|\r\n)(\d{3}) [^\r\n]*\r\n/.exec(buffer);
    if (!m || !waiting) return;
    const end = m.index + m[0].length;
    const reply = buffer.slice(0, end);
    buffer = buffer.slice(end);
    const w = waiting;
    waiting = null;
    w(reply.trim());
  };
  socket.on('data', (d) => {
    buffer += d.toString('utf8');
    take();
  });
  const read = () =>
    new Promise<string>((resolve, reject) => {
      waiting = resolve;
      socket.once('error', reject);
      void closed.then(() => resolve(buffer.trim() || 'closed'));
      take();
    });
  const greeting = await read();
  const command = (line: string) => {
    socket.write(`${line}\r\n`);
    return read();
  };
  return {
    greeting,
    command,
    async data(raw) {
      const r = await command('DATA');
      if (!r.startsWith('354')) return r;
      socket.write(`${raw.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')}\r\n.\r\n`);
      return read();
    },
    closed,
    close: () => socket.destroy(),
  };
}
