/** Raw TCP clients for tests of what a server does below HTTP's happy path (stalled bodies, idle connections). */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** What came back so far, as text. */
  received: () => string;
  /** Resolves with `Date.now()` when the server (or the test) closed the connection. */
  closed: Promise<number>;
}

/** Connects to 127.0.0.1:`port`, sends `text` and collects what comes back; `opened` keeps the socket for the test's clean-up. */
export async function rawSend(port: number, text: string, opened: Socket[]): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  opened.push(socket);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = once(socket, 'close').then(() => Date.now());
  socket.write(text);
  return { socket, received: () => received, closed };
}
