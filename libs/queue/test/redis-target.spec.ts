import { describe, expect, it } from 'vitest';
import { queueEnvSchema } from '../src/environment.js';
import { parseRedisUrl, queuePrefixOf, redisUrlProblem, taggedKey } from '../src/redis-target.js';

describe('REDIS_URL', () => {
  it('names one server, with credentials, database and TLS', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({
      cluster: false,
      nodes: [{ host: '127.0.0.1', port: 6379 }],
      tls: false,
    });
    expect(parseRedisUrl('rediss://app:s%40cret@cache.internal/2')).toEqual({
      cluster: false,
      nodes: [{ host: 'cache.internal', port: 6379 }],
      username: 'app',
      password: 's@cret',
      db: 2,
      tls: true,
    });
  });

  it('names a Redis Cluster by its seed nodes', () => {
    expect(parseRedisUrl('redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002')).toEqual({
      cluster: true,
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      password: 'pw',
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://clustercfg.example.cache.amazonaws.com:6379').tls).toBe(true);
  });

  it('is refused at boot with a sentence naming the problem', () => {
    expect(redisUrlProblem('http://127.0.0.1:6379')).toMatch(/must start with redis:\/\/, rediss:\/\//);
    expect(redisUrlProblem('redis://a:1,b:2')).toMatch(/redis\+cluster:\/\/host1:port,host2:port/);
    expect(redisUrlProblem('redis+cluster://a:1/3')).toMatch(/database 0 only/);
    expect(redisUrlProblem('redis://host:99999')).toMatch(/out of range/);
    expect(redisUrlProblem('redis://host/db')).toMatch(/database number/);
    const parsed = queueEnvSchema.safeParse({ REDIS_URL: 'redis+cluster://a:1/3' });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({
      path: ['REDIS_URL'],
      message: expect.stringMatching(/database 0/),
    });
  });
});

describe('key names on a Redis Cluster', () => {
  it("keeps QUEUE_PREFIX as BullMQ's prefix on one server (jobs already waiting stay where workers look)", () => {
    expect(queuePrefixOf('zw', 'snapshots', false)).toBe('zw');
  });

  it('gives each queue a hash tag of its own on a cluster, so its keys share a slot and queues spread', () => {
    expect(queuePrefixOf('zw', 'snapshots', true)).toBe('zw:{snapshots}');
    expect(queuePrefixOf('zw', 'report-deliveries', true)).toBe('zw:{report-deliveries}');
    expect(taggedKey('zw', 'sse:org-1', 'key', 'k-1')).toBe('zw:{sse:org-1}:key:k-1');
  });
});
