// The private redis-server helper lives with the CLI (`threadlab bench queue` uses it too).
export { freePort, startPrivateRedis, type PrivateRedis } from '../../cli/private-redis.js';
