import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrl, createGuardedAgent, guardedLookup, type ResolvedAddress } from '../../src/webhooks/address-guard.js';
import { classifyAddress } from '../../src/webhooks/ip-ranges.js';

const strict = { allowPrivateNetworks: false };

describe('classifyAddress', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['168.63.129.16', 'cloud-metadata'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:93.184.216.34', 'ipv4-mapped'],
    ['::7f00:1', 'ipv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['64:ff9b:1::a00:1', 'nat64'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001::5601:5601', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'],
    ['3fff::1', 'documentation'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'not-global-unicast'],
    ['4000::1', 'not-global-unicast'],
    ['nonsense', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });
});

describe('checkWebhookUrl', () => {
  const refused: [string, string][] = [
    ['http://example.com/', 'scheme'],
    ['HTTPS://example.com/', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['https://', 'invalid'],
    ['https://exa mple.com/', 'invalid'],
    ['https://h.example:8443/', 'port'],
    ['https://h.example:0/', 'port'],
    ['https://h.example:80/', 'port'],
    ['https://u:p@h.example/', 'credentials'],
    ['https://u@h.example/', 'credentials'],
    ['https://localhost/', 'host'],
    ['https://LOCALHOST./', 'host'],
    ['https://api.localhost/', 'host'],
    ...[
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      '0',
      '[::]',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::7f00:1]',
      '[64:ff9b::a9fe:a9fe]',
      '[64:ff9b:1::a00:1]',
      '[2002:a9fe:a9fe::1]',
      '[2001::5601:5601]',
      '169.254.169.254',
      '168.63.129.16',
      '100.64.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '192.0.0.8',
      '198.18.0.1',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '[fc00::1]',
      '[fe80::1]',
      '[fec0::1]',
      '[ff02::1]',
      '１２７.０.０.１',
      '127。0。0。1',
      '0x7f000001',
      '017700000001',
    ].map((host): [string, string] => [`https://${host}/hook`, 'host']),
  ];

  it.each(refused)('%s is refused (%s)', (url, reason) => {
    expect(checkWebhookUrl(url, strict)).toEqual({ ok: false, reason });
  });

  it.each(['https://h.example/', 'https://h.example:443/', 'https://h.example:0443/x?y=1', 'https://93.184.216.34/', 'https://[2606:4700:4700::1111]/'])(
    '%s is accepted',
    (url) => {
      expect(checkWebhookUrl(url, strict).ok).toBe(true);
    },
  );

  it('allowPrivateNetworks relaxes the host rule only', () => {
    const relaxed = { allowPrivateNetworks: true };
    expect(checkWebhookUrl('https://localhost/', relaxed).ok).toBe(true);
    expect(checkWebhookUrl('https://127.0.0.1/', relaxed).ok).toBe(true);
    expect(checkWebhookUrl('http://localhost/', relaxed)).toEqual({ ok: false, reason: 'scheme' });
    expect(checkWebhookUrl('https://localhost:8443/', relaxed)).toEqual({ ok: false, reason: 'port' });
    expect(checkWebhookUrl('https://u:p@localhost/', relaxed)).toEqual({ ok: false, reason: 'credentials' });
  });
});

describe('guardedLookup', () => {
  const lookup = (answers: ResolvedAddress[], options: { all?: boolean; family?: number } = { all: true }, policy = strict) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
      guardedLookup(async () => answers, policy)('receiver.test', options as never, (error, address, family) => resolve({ error, address, family }));
    });

  it('hands over exactly the checked public addresses', async () => {
    const answers: ResolvedAddress[] = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    expect((await lookup(answers)).address).toEqual(answers);
    expect(await lookup(answers, { family: 6 })).toMatchObject({ error: null, address: answers[1]!.address, family: 6 });
    expect(await lookup(answers, {})).toMatchObject({ error: null, address: answers[0]!.address, family: 4 });
  });

  it.each([
    [[{ address: '127.0.0.1', family: 4 }]],
    [
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    ],
    [
      [
        { address: '93.184.216.34', family: 4 },
        { address: 'fd00::1', family: 6 },
      ],
    ],
    [[{ address: '::ffff:169.254.169.254', family: 6 }]],
  ] as [ResolvedAddress[]][])('refuses %j (all: true and with a family)', async (answers) => {
    for (const options of [{ all: true }, { family: 4 }, { family: 6 }, {}]) {
      const { error } = await lookup(answers, options);
      expect((error as { code?: string } | null)?.code, JSON.stringify(options)).toBe('ERR_TILECAST_ADDRESS_BLOCKED');
      expect(String(error?.message)).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
    }
  });

  it('refuses localhost without asking the resolver, unless private networks are allowed', async () => {
    let asked = 0;
    const resolve = async () => {
      asked++;
      return [{ address: '127.0.0.1', family: 4 as const }];
    };
    const result = await new Promise<NodeJS.ErrnoException | null>((done) =>
      guardedLookup(resolve, strict)('localhost', { all: true }, (error) => done(error)),
    );
    expect(result?.code).toBe('ERR_TILECAST_ADDRESS_BLOCKED');
    expect(asked).toBe(0);
    const allowed = await new Promise<unknown>((done) =>
      guardedLookup(resolve, { allowPrivateNetworks: true })('localhost', { all: true }, (_e, address) => done(address)),
    );
    expect(allowed).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('passes resolver failures on (a transient network error for delivery)', async () => {
    const failing = async (): Promise<ResolvedAddress[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await new Promise<NodeJS.ErrnoException | null>((done) => guardedLookup(failing, strict)('nowhere.test', { all: true }, (e) => done(e)));
    expect(error?.code).toBe('ENOTFOUND');
  });
});

describe('a blocked destination opens no connection', () => {
  let listener: Server;
  let port: number;
  let connections: number;
  beforeEach(async () => {
    connections = 0;
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it('net.connect with the guarded lookup never reaches the loopback listener', async () => {
    const { connect } = await import('node:net');
    const lookup = guardedLookup(async () => [{ address: '127.0.0.1', family: 4 }], strict);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const socket = connect({ host: 'internal.test', port, lookup });
      socket.on('error', resolve);
      socket.on('connect', () => resolve(Object.assign(new Error('connected'), { code: 'CONNECTED' })));
    });
    expect(error.code).toBe('ERR_TILECAST_ADDRESS_BLOCKED');
    expect(connections).toBe(0);
  });

  it('the agent refuses IP-literal hosts itself (Node skips lookup for literals)', async () => {
    const agent = createGuardedAgent({ unsafeTestOnlyDial: { port } });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const req = httpsRequest({ host: '127.0.0.1', path: '/', agent }, () => resolve(Object.assign(new Error('answered'), { code: 'ANSWERED' })));
      req.on('error', resolve);
      req.end();
    });
    agent.destroy();
    expect(error.code).toBe('ERR_TILECAST_ADDRESS_BLOCKED');
    expect(connections).toBe(0);
  });
});
