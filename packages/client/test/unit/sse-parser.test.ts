import { describe, expect, it } from 'vitest';
import { SseParser, type SseMessage } from '../../src/sse.js';

function parse(chunks: string[], lastEventId?: string) {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const ids: string[] = [];
  const parser = new SseParser({ message: (m) => messages.push(m), retry: (ms) => retries.push(ms), lastEventId: (id) => ids.push(id) }, lastEventId);
  for (const chunk of chunks) parser.push(chunk);
  return { messages, retries, ids };
}

describe('SseParser', () => {
  it('reads the stream opening, events, pings and the id of each event', () => {
    const { messages, retries, ids } = parse(['retry: 1000\nid: u:0\n\n', ': ping\n\n', 'id: u:1\ndata: {"a":1}\n\n']);
    expect(retries).toEqual([1000]);
    expect(ids).toEqual(['u:0', 'u:1']);
    expect(messages).toEqual([{ event: 'message', data: '{"a":1}', lastEventId: 'u:1' }]);
  });

  it('joins lines split across chunks, with CRLF split between two chunks', () => {
    const { messages } = parse(['\uFEFFid: u:', '5\r', '\ndata: {"b"', ':2}\r\n', '\r\n']);
    expect(messages).toEqual([{ event: 'message', data: '{"b":2}', lastEventId: 'u:5' }]);
  });

  it('joins multi-line data, keeps event names, ignores unknown fields and bad retry values', () => {
    const { messages, retries } = parse(['event: widget\ndata: one\ndata:two\nfoo: bar\nretry: soon\n\n']);
    expect(messages).toEqual([{ event: 'widget', data: 'one\ntwo', lastEventId: undefined }]);
    expect(retries).toEqual([]);
  });

  it('keeps the resumed id until the stream sends another, and does not dispatch an unfinished event', () => {
    const { messages, ids } = parse(['data: x\n\n', 'id: u:9\ndata: y\n'], 'u:3');
    expect(messages).toEqual([{ event: 'message', data: 'x', lastEventId: 'u:3' }]);
    expect(ids).toEqual([]);
  });
});
