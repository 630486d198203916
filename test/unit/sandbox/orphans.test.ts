import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { removeOrphans } from '../../../sandbox/orphans.js';

function fakeDocker(containers: { Id: string; State: string; Labels: Record<string, string> }[]) {
  const removed: string[] = [];
  const docker = {
    listContainers: async (opts: unknown) => {
      expect(opts).toEqual({ all: true, filters: { label: ['dev.threadlab.sandbox=1'] } });
      return containers.map((c) => ({ ...c, Names: [`/${c.Id}`] }));
    },
    getContainer: (id: string) => ({ remove: async () => void removed.push(id) }),
  } as unknown as Docker;
  return { docker, removed };
}

const labels = (instance: string, host: string, pid: number) => ({
  'dev.threadlab.sandbox': '1',
  'dev.threadlab.instance': instance,
  'dev.threadlab.host': host,
  'dev.threadlab.pid': String(pid),
});

describe('removeOrphans', () => {
  it('removes containers of dead instances on this host and stopped ones from elsewhere', async () => {
    const { docker, removed } = fakeDocker([
      { Id: 'mine', State: 'running', Labels: labels('me', 'h', 1) },
      { Id: 'dead', State: 'running', Labels: labels('old', 'h', 111) },
      { Id: 'sibling', State: 'running', Labels: labels('other', 'h', 222) },
      { Id: 'remote-running', State: 'running', Labels: labels('far', 'elsewhere', 111) },
      { Id: 'remote-exited', State: 'exited', Labels: labels('far', 'elsewhere', 111) },
      {
        Id: 'unlabelled-pid',
        State: 'running',
        Labels: { 'dev.threadlab.sandbox': '1', 'dev.threadlab.instance': 'x', 'dev.threadlab.host': 'h' },
      },
    ]);
    const names = await removeOrphans(docker, {
      olderThanInstance: 'me',
      host: 'h',
      isProcessAlive: (pid) => pid === 222,
    });
    expect(removed).toEqual(['dead', 'remote-exited', 'unlabelled-pid']);
    expect(names).toEqual(removed);
  });

  it('reports an unreachable engine as docker_unreachable', async () => {
    const docker = {
      listContainers: async () => {
        throw Object.assign(new Error('connect ENOENT'), { code: 'ENOENT' });
      },
    } as unknown as Docker;
    await expect(removeOrphans(docker, { olderThanInstance: 'me' })).rejects.toMatchObject({
      code: 'docker_unreachable',
    });
  });
});
