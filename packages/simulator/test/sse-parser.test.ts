import { describe, expect, it } from 'vitest';
import { SseParser } from '../src/index.js';

describe('SseParser', () => {
  it('reads retry, named events and comments as the device stream sends them', () => {
    const parser = new SseParser();
    const text = 'retry: 1000\n\nevent: widget\ndata: {"slug":"lights"}\n\n: ping\n\nevent: activity\nid: 7\ndata: {"phase":"start"}\n\n';
    expect(parser.push(text)).toEqual([
      { event: 'widget', data: '{"slug":"lights"}', id: null },
      { event: 'activity', data: '{"phase":"start"}', id: '7' },
    ]);
    expect(parser.retryMs).toBe(1000);
  });

  it('joins events split across chunks at any byte, CRLF included', () => {
    const text = 'event: widget\r\ndata: {"a":1}\r\n\r\ndata: x\rdata: y\r\r';
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const messages = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(messages, `cut at ${cut}`).toEqual([
        { event: 'widget', data: '{"a":1}', id: null },
        { event: 'message', data: 'x\ny', id: null },
      ]);
    }
  });

  it('an empty chunk between the halves of a CRLF changes nothing', () => {
    const parser = new SseParser();
    const messages = [...parser.push('data: x\r'), ...parser.push(''), ...parser.push('\ndata: y\n\n')];
    expect(messages).toEqual([{ event: 'message', data: 'x\ny', id: null }]);
  });

  it('ignores a malformed retry and an event without data', () => {
    const parser = new SseParser();
    expect(parser.push('retry: soon\nevent: widget\n\n')).toEqual([]);
    expect(parser.retryMs).toBeNull();
  });

  it('refuses to buffer an endless line', () => {
    const parser = new SseParser();
    expect(() => parser.push(`data: ${'x'.repeat(1024 * 1024 + 1)}`)).toThrow(/too long/);
  });
});
