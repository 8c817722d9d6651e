import { describe, expect, it } from 'vitest';
import { SSE_MAX_LINE, SseLineTooLongError, SseParser, type SseMessage } from '../../src/sse.js';

function parse(chunks: string[], lastEventId?: string) {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const ids: string[] = [];
  const comments: string[] = [];
  const parser = new SseParser(
    { message: (m) => messages.push(m), retry: (ms) => retries.push(ms), lastEventId: (id) => ids.push(id), comment: (text) => comments.push(text) },
    lastEventId,
  );
  for (const chunk of chunks) parser.push(chunk);
  return { messages, retries, ids, comments };
}

// The WHATWG event-stream interpretation rules, tested once for the one parser that the
// client, the simulator page and the tests share.
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

  it('joins events split across chunks at any character, CR, LF and CRLF line ends alike', () => {
    const text = 'event: widget\r\ndata: {"a":1}\r\n\r\ndata: x\rdata: y\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const { messages } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(messages, `cut at ${cut}`).toEqual([
        { event: 'widget', data: '{"a":1}', lastEventId: undefined },
        { event: 'message', data: 'x\ny', lastEventId: undefined },
      ]);
    }
  });

  it('an empty chunk between the halves of a CRLF changes nothing', () => {
    expect(parse(['data: x\r', '', '\ndata: y\n\n']).messages).toEqual([{ event: 'message', data: 'x\ny', lastEventId: undefined }]);
  });

  it('a chunk that is only the LF of a CRLF ends nothing more', () => {
    const messages = parse(['data: x\r', '\n', '\ndata: y\n\n']).messages;
    expect(messages).toEqual([
      { event: 'message', data: 'x', lastEventId: undefined },
      { event: 'message', data: 'y', lastEventId: undefined },
    ]);
  });

  it('strips one BOM at the very start only', () => {
    expect(parse(['\uFEFFdata: a\n\n']).messages).toEqual([{ event: 'message', data: 'a', lastEventId: undefined }]);
    const later = parse(['data: a\n\n', '\uFEFFdata: b\n\n']).messages;
    expect(later).toEqual([{ event: 'message', data: 'a', lastEventId: undefined }]);
  });

  it('ignores an id containing NUL, keeping the previous one', () => {
    const { messages, ids } = parse(['id: u:1\ndata: a\n\n', 'id: u:\u00002\ndata: b\n\n']);
    expect(ids).toEqual(['u:1']);
    expect(messages.map((m) => m.lastEventId)).toEqual(['u:1', 'u:1']);
  });

  it('reports comments such as the heartbeat, and never dispatches them', () => {
    const { messages, comments } = parse([': ping\n\n', ':raw\n\n']);
    expect(comments).toEqual(['ping', 'raw']);
    expect(messages).toEqual([]);
  });

  it('a field name without a colon is the whole line, with an empty value', () => {
    expect(parse(['data\ndata\n\n']).messages).toEqual([{ event: 'message', data: '\n', lastEventId: undefined }]);
  });

  it('refuses to buffer an endless line', () => {
    expect(() => parse([`data: ${'x'.repeat(SSE_MAX_LINE + 1)}`])).toThrow(SseLineTooLongError);
  });
});
