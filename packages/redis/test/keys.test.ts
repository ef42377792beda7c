import { describe, expect, test } from 'vitest';
import { decodeMessage, encodeMessage } from '../src/bus-messages.ts';
import { holderOf, instanceIds, isInstanceTag, newInstanceTag } from '../src/instance.ts';
import { RedisKeys } from '../src/keys.ts';

describe('key layout', () => {
  test('every key and channel of a namespace', () => {
    const keys = new RedisKeys('ns');
    expect(keys.session('S1')).toBe('ns:{S1}:s');
    expect(keys.events('S1')).toBe('ns:{S1}:e');
    expect(keys.gone('S1')).toBe('ns:{S1}:gone');
    expect(keys.sessions).toBe('ns:sessions');
    expect(keys.principalSessions('alice')).toBe('ns:ps:alice');
    expect(keys.instance('k3x9q0ab1z')).toBe('ns:inst:k3x9q0ab1z');
    expect(keys.inbox('k3x9q0ab1z')).toBe('ns:inbox:k3x9q0ab1z');
    expect(keys.task('T1')).toBe('ns:{t:T1}');
    expect(keys.taskList('b')).toBe('ns:tb:b');
    expect(keys.taskActive('b')).toBe('ns:ta:b');
    expect(keys.tasks).toBe('ns:tasks');
    expect(keys.secret).toBe('ns:secret');
    expect(keys.broadcast).toBe('ns:all');
    expect(keys.channel('k3x9q0ab1z')).toBe('ns:i:k3x9q0ab1z');
    expect(keys.channelTag('ns:i:k3x9q0ab1z')).toBe('k3x9q0ab1z');
    expect(keys.channelTag('ns:all')).toBeUndefined();
    expect(new RedisKeys().sessions).toBe('edge-mcp:sessions');
  });

  test('a namespace with braces or spaces, or empty, is refused', () => {
    for (const bad of ['', 'a{b', 'a}', 'a b'])
      expect(() => new RedisKeys(bad)).toThrow(/namespace/);
  });
});

describe('instance tags and the ids that name their holder', () => {
  test('tags are 10 base36 characters, random', () => {
    const tags = new Set(Array.from({ length: 1000 }, () => newInstanceTag()));
    expect(tags.size).toBe(1000);
    for (const tag of tags) expect(isInstanceTag(tag)).toBe(true);
    expect(isInstanceTag('k3x9q0ab1')).toBe(false);
    expect(isInstanceTag('k3x9q0ab1Z')).toBe(false);
  });

  test('stream and request ids start with the tag; the holder is parsed back', () => {
    const ids = instanceIds('k3x9q0ab1z');
    const stream = ids.stream();
    const request = ids.request();
    expect(stream).toBe('k3x9q0ab1z.1');
    expect(request).toBe('sk3x9q0ab1z.2');
    expect(ids.stream()).toBe('k3x9q0ab1z.3');
    expect(holderOf(stream)).toBe('k3x9q0ab1z');
    expect(holderOf(request)).toBe('k3x9q0ab1z');
    expect(holderOf(`${stream}-57`)).toBe('k3x9q0ab1z');
    // A tag starting with 's' stays unambiguous.
    expect(holderOf('sabcdefghi.4')).toBe('sabcdefghi');
    expect(holderOf('ssabcdefghi.4')).toBe('sabcdefghi');
    for (const other of ['0', '0-12', '3', 's5', 7, 'client-id', 'K3X9Q0AB1Z.1'])
      expect(holderOf(other)).toBeUndefined();
  });
});

describe('bus messages', () => {
  test('encoded with version and sender, decoded back', () => {
    const text = encodeMessage('k3x9q0ab1z', { k: 'cancel', s: 'S1', r: 7 });
    expect(JSON.parse(text)).toEqual({ v: 1, o: 'k3x9q0ab1z', k: 'cancel', s: 'S1', r: 7 });
    expect(decodeMessage(text)).toEqual({
      message: { v: 1, o: 'k3x9q0ab1z', k: 'cancel', s: 'S1', r: 7 },
    });
  });

  test('another version, an unknown kind, no sender, not JSON: ignored with the reason', () => {
    expect(decodeMessage('{"v":2,"o":"a","k":"cancel"}')).toEqual({
      ignored: 'version 2',
      kind: 'cancel',
    });
    expect(decodeMessage('{"v":1,"o":"a","k":"teleport"}')).toEqual({
      ignored: 'unknown kind "teleport"',
      kind: 'teleport',
    });
    expect(decodeMessage('{"v":1,"k":"cancel"}')).toEqual({ ignored: 'no sender' });
    expect(decodeMessage('nope')).toEqual({ ignored: 'not JSON' });
    expect(decodeMessage('[1]')).toEqual({ ignored: 'not an object' });
  });
});
