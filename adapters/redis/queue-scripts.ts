import type { Redis } from 'ioredis';

/*
 * Lua scripts of BullMqJobQueue's per-thread lists. Every script builds its keys from the prefix in
 * ARGV[1], so it targets a single Redis node (not a cluster). Keys, with P = `${prefix}:tl`:
 *   P:seen:<eventId>    set for dedupeTtlMs once an event was admitted or refused
 *   P:msg:<eventId>     hash { job: JSON, u: user, w: workspace, attempts }
 *   P:t:<thread>        list of waiting event ids, head = running or next
 *   P:lock:<thread>     id of the BullMQ job draining the thread (PX threadLockTtlMs, renewed)
 *   P:cur:<thread>      event id that is running right now
 *   P:depth, P:inflight hash {u:<user>, w:<workspace>}, P:rl:u:<user>, P:rl:w:<ws> (per-minute windows)
 *   P:aff:<thread>      id of the worker that last ran the thread (it holds the container)
 *   P:hb:<worker>       heartbeat of a live worker; P:workers is the set of workers ever started
 *   P:drain:<worker>    set while a live worker shuts down: it takes no new affinity jobs
 */

const RELEASE_COUNTERS = `
local function release(p, id)
  local m = p .. ':msg:' .. id
  local u = redis.call('HGET', m, 'u')
  local w = redis.call('HGET', m, 'w')
  local job = redis.call('HGET', m, 'job')
  redis.call('DEL', m)
  if not job then return false end
  if tonumber(redis.call('DECR', p .. ':depth')) < 0 then redis.call('SET', p .. ':depth', 0) end
  if tonumber(redis.call('HINCRBY', p .. ':inflight', 'u:' .. u, -1)) <= 0 then redis.call('HDEL', p .. ':inflight', 'u:' .. u) end
  if tonumber(redis.call('HINCRBY', p .. ':inflight', 'w:' .. w, -1)) <= 0 then redis.call('HDEL', p .. ':inflight', 'w:' .. w) end
  return job
end
`;

const ROUTE_FN = `
local function route(p, thread)
  local w = redis.call('GET', p .. ':aff:' .. thread)
  if w and redis.call('EXISTS', p .. ':hb:' .. w) == 1 and redis.call('EXISTS', p .. ':drain:' .. w) == 0 then return w end
  return ''
end
`;

/** Admission: dedupe, limits (the same order as decide() in src/queue/limits.ts), then append. */
const ENQUEUE =
  ROUTE_FN +
  `
local p, id, thread, u, w, job = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local dedupeTtl, msgTtl = tonumber(ARGV[7]), tonumber(ARGV[8])
local uMaxC, uMaxM, wMaxC, wMaxM, maxLen = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local windowMs = tonumber(ARGV[14])
local seen = p .. ':seen:' .. id
if redis.call('SET', seen, '1', 'NX', 'PX', dedupeTtl) == false then return {'duplicate'} end
local function left(key)
  local t = tonumber(redis.call('PTTL', key))
  if t < 0 then return windowMs end
  return t
end
local ru, rw = p .. ':rl:u:' .. u, p .. ':rl:w:' .. w
if tonumber(redis.call('GET', p .. ':depth') or '0') >= maxLen then return {'refused', 'queue_length', 0} end
if tonumber(redis.call('GET', ru) or '0') >= uMaxM then return {'refused', 'user_rate', left(ru)} end
if tonumber(redis.call('GET', rw) or '0') >= wMaxM then return {'refused', 'workspace_rate', left(rw)} end
if tonumber(redis.call('HGET', p .. ':inflight', 'u:' .. u) or '0') >= uMaxC then return {'refused', 'user_concurrent', 0} end
if tonumber(redis.call('HGET', p .. ':inflight', 'w:' .. w) or '0') >= wMaxC then return {'refused', 'workspace_concurrent', 0} end
if redis.call('INCR', ru) == 1 then redis.call('PEXPIRE', ru, windowMs) end
if redis.call('INCR', rw) == 1 then redis.call('PEXPIRE', rw, windowMs) end
redis.call('HINCRBY', p .. ':inflight', 'u:' .. u, 1)
redis.call('HINCRBY', p .. ':inflight', 'w:' .. w, 1)
local depth = redis.call('INCR', p .. ':depth')
local m = p .. ':msg:' .. id
redis.call('HSET', m, 'job', job, 'u', u, 'w', w, 'attempts', 0)
redis.call('PEXPIRE', m, msgTtl)
local len = redis.call('RPUSH', p .. ':t:' .. thread, id)
-- Behind a live owner no drain job is needed: the owner runs it or hands the thread back.
local trigger = 1
if len > 1 and redis.call('EXISTS', p .. ':lock:' .. thread) == 1 then trigger = 0 end
return {'accepted', len - 1, depth, trigger, route(p, thread)}
`;

/** A drainer takes the thread (or keeps it) and starts its head; releases the thread when empty. */
const BEGIN =
  RELEASE_COUNTERS +
  `
local p, thread, owner, ttl, worker, affTtl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local lock, list, cur = p .. ':lock:' .. thread, p .. ':t:' .. thread, p .. ':cur:' .. thread
local holder = redis.call('GET', lock)
if holder and holder ~= owner then return {'busy'} end
while true do
  local head = redis.call('LINDEX', list, 0)
  if not head then
    redis.call('DEL', lock, cur)
    return {'empty'}
  end
  local m = p .. ':msg:' .. head
  local job = redis.call('HGET', m, 'job')
  if job then
    redis.call('SET', lock, owner, 'PX', ttl)
    redis.call('SET', cur, head, 'PX', ttl)
    local attempts = redis.call('HINCRBY', m, 'attempts', 1)
    if worker ~= '' then redis.call('SET', p .. ':aff:' .. thread, worker, 'PX', affTtl) end
    return {'run', head, job, attempts}
  end
  -- the record expired (msgTtl): nothing left to run for this id
  redis.call('LPOP', list)
end
`;

/** The head finished (or was given up): remove it and free its counters. Returns the new depth. */
const FINISH =
  RELEASE_COUNTERS +
  `
local p, thread, id = ARGV[1], ARGV[2], ARGV[3]
local list = p .. ':t:' .. thread
if redis.call('LINDEX', list, 0) == id then
  redis.call('LPOP', list)
  release(p, id)
end
redis.call('DEL', p .. ':cur:' .. thread)
return tonumber(redis.call('GET', p .. ':depth') or '0')
`;

/** Keeps the thread while its job runs; 0 when another drainer took over. */
const RENEW = `
local p, thread, owner, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if redis.call('GET', p .. ':lock:' .. thread) ~= owner then return 0 end
redis.call('PEXPIRE', p .. ':lock:' .. thread, ttl)
redis.call('PEXPIRE', p .. ':cur:' .. thread, ttl)
return 1
`;

/** Lets go of a thread without finishing its head (shutdown, failed drain job); returns its length. */
const RELEASE = `
local p, thread, owner = ARGV[1], ARGV[2], ARGV[3]
if redis.call('GET', p .. ':lock:' .. thread) == owner then redis.call('DEL', p .. ':lock:' .. thread, p .. ':cur:' .. thread) end
return redis.call('LLEN', p .. ':t:' .. thread)
`;

/** Drops a thread's waiting jobs (not the running head) and returns them; first item: 1 when one runs. */
const CANCEL =
  RELEASE_COUNTERS +
  `
local p, thread = ARGV[1], ARGV[2]
local list = p .. ':t:' .. thread
local running = redis.call('GET', p .. ':cur:' .. thread)
local ids = redis.call('LRANGE', list, 0, -1)
local out = {0}
local keep = nil
if running and ids[1] == running then
  out[1] = 1
  keep = running
end
redis.call('DEL', list)
if keep then redis.call('RPUSH', list, keep) end
for i, id in ipairs(ids) do
  if id ~= keep then
    local job = release(p, id)
    if job then table.insert(out, job) end
  end
end
return out
`;

/** The live worker that holds the thread's container (unless it is shutting down), or ''. */
const ROUTE = ROUTE_FN + `return route(ARGV[1], ARGV[2])`;

const SCRIPTS = {
  tlRoute: ROUTE,
  tlEnqueue: ENQUEUE,
  tlBegin: BEGIN,
  tlFinish: FINISH,
  tlRenew: RENEW,
  tlRelease: RELEASE,
  tlCancel: CANCEL,
};
type ScriptName = keyof typeof SCRIPTS;
type Arg = string | number;

/** Typed calls of the scripts above on one ioredis connection (EVALSHA with EVAL fallback). */
export class QueueScripts {
  constructor(
    private readonly redis: Redis,
    /** `${keyPrefix}:${queueName}:tl` */
    readonly prefix: string,
  ) {
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: 0, lua });
    }
  }

  private call(name: ScriptName, ...args: Arg[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<ScriptName, (...a: Arg[]) => Promise<unknown>>)[name];
    return fn.call(this.redis, this.prefix, ...args);
  }

  enqueue(a: {
    id: string;
    thread: string;
    user: string;
    workspace: string;
    payload: string;
    dedupeTtlMs: number;
    msgTtlMs: number;
    limits: number[];
    windowMs: number;
  }): Promise<[string, Arg?, Arg?, Arg?, string?]> {
    return this.call(
      'tlEnqueue',
      a.id,
      a.thread,
      a.user,
      a.workspace,
      a.payload,
      a.dedupeTtlMs,
      a.msgTtlMs,
      ...a.limits,
      a.windowMs,
    ) as Promise<[string, Arg?, Arg?, Arg?, string?]>;
  }

  async route(thread: string): Promise<string> {
    return String(await this.call('tlRoute', thread));
  }

  /** `worker` ('' for none) becomes the thread's affinity for `affinityTtlMs`. */
  begin(a: {
    thread: string;
    owner: string;
    ttlMs: number;
    worker: string;
    affinityTtlMs: number;
  }): Promise<[string, string?, string?, number?]> {
    return this.call('tlBegin', a.thread, a.owner, a.ttlMs, a.worker, a.affinityTtlMs) as Promise<
      [string, string?, string?, number?]
    >;
  }

  async finish(thread: string, id: string): Promise<number> {
    return Number(await this.call('tlFinish', thread, id));
  }

  async renew(thread: string, owner: string, ttlMs: number): Promise<boolean> {
    return Number(await this.call('tlRenew', thread, owner, ttlMs)) === 1;
  }

  async release(thread: string, owner: string): Promise<number> {
    return Number(await this.call('tlRelease', thread, owner));
  }

  /** The stored record of the thread's head event (the one running, or next to run), if any. */
  async head(thread: string): Promise<string | undefined> {
    const id = await this.redis.lindex(`${this.prefix}:t:${thread}`, 0);
    if (!id) return undefined;
    return (await this.redis.hget(`${this.prefix}:msg:${id}`, 'job')) ?? undefined;
  }

  async cancel(thread: string): Promise<{ running: boolean; dropped: string[] }> {
    const [running, ...dropped] = (await this.call('tlCancel', thread)) as [number, ...string[]];
    return { running: running === 1, dropped };
  }
}
