import Docker from 'dockerode';

/**
 * The sandbox image under test: THREADLAB_TEST_SANDBOX_IMAGE (the global set-up builds and sets it),
 * else the newest local `threadlab-sandbox:*` tag when a file is run on its own.
 */
export async function sandboxImage(docker = new Docker()): Promise<string> {
  const fromEnv = process.env.THREADLAB_TEST_SANDBOX_IMAGE;
  if (fromEnv) return fromEnv;
  const images = await docker.listImages({ filters: { reference: ['threadlab-sandbox:*'] } });
  const tag = images
    .sort((a, b) => b.Created - a.Created)[0]
    ?.RepoTags?.find((t) => t.startsWith('threadlab-sandbox:'));
  if (!tag) throw new Error('No threadlab-sandbox image: run `threadlab sandbox build`');
  return tag;
}
