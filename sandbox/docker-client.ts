import Docker from 'dockerode';

/** A dockerode client for DOCKER_HOST (unix://, tcp://, ssh://) or the local socket. */
export function createDocker(dockerHost?: string): Docker {
  if (!dockerHost) return new Docker();
  const url = new URL(dockerHost);
  if (url.protocol === 'unix:') return new Docker({ socketPath: url.pathname });
  if (url.protocol === 'ssh:')
    return new Docker({
      protocol: 'ssh',
      host: url.hostname,
      port: Number(url.port || 22),
      username: url.username || undefined,
    });
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return new Docker({ protocol, host: url.hostname, port: Number(url.port || 2375) });
}
