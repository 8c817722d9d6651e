import { connect } from 'node:net';

/**
 * Opens many SSE streams with raw sockets (one process holds 10,000 of them cheaply) and
 * reports each `data:` line with its arrival time. `localAddress` spreads runs over
 * loopback addresses so closed sockets in TIME_WAIT never exhaust the ports.
 */
export async function openStreams({ port, count, path, headersFor, localAddress = '127.0.0.1', onData = () => {}, concurrency = 200 }) {
  const sockets = new Array(count);
  const ended = new Set();
  let opened = 0;
  const openOne = (i) =>
    new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress });
      socket.setNoDelay(true);
      let head = '';
      let ready = false;
      let rest = '';
      socket.on('connect', () => {
        const headers = Object.entries(headersFor(i))
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('');
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n${headers}\r\n`);
      });
      socket.on('data', (chunk) => {
        const now = performance.now();
        let text = chunk.toString('latin1');
        if (!ready) {
          head += text;
          const end = head.indexOf('\r\n\r\n');
          if (end === -1) return;
          if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(`stream ${i}: ${head.split('\r\n')[0]}`));
          ready = true;
          opened++;
          resolve();
          text = head.slice(end + 4);
        }
        // The last chunk of a chunked response: the server ended the stream (the
        // connection itself may stay open for keep-alive).
        if (text.includes('\r\n0\r\n\r\n') || text.startsWith('0\r\n\r\n')) ended.add(i);
        rest += text;
        let line;
        while ((line = rest.indexOf('\n')) !== -1) {
          const current = rest.slice(0, line);
          rest = rest.slice(line + 1);
          if (current.startsWith('data: ')) onData(i, current.slice(6), now);
        }
      });
      socket.on('error', (error) => (ready ? ended.add(i) : reject(error)));
      socket.on('close', () => ended.add(i));
      sockets[i] = socket;
    });
  for (let start = 0; start < count; start += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, k) => openOne(start + k)));
  }
  return {
    sockets,
    opened: () => opened,
    ended,
    /** Stops reading one stream without closing it (a client that stopped reading). */
    stall: (i) => sockets[i].pause(),
    close: () => sockets.forEach((socket) => socket?.destroy()),
  };
}
