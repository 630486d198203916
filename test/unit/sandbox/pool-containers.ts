import type { LiveContainer } from '../../../sandbox/live-container.js';

/** A stand-in for a started container: alive until `die` (its runner connection closes) or `remove`. */
export function fakeContainer(id: number) {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const state = { alive: true, removed: false };
  const live = {
    id: String(id),
    get isAlive() {
      return state.alive;
    },
    connection: { closed },
    remove: async () => {
      state.removed = true;
      state.alive = false;
    },
  } as unknown as LiveContainer;
  return {
    live,
    state,
    die: () => {
      state.alive = false;
      resolveClosed();
    },
  };
}

export type FakeContainer = ReturnType<typeof fakeContainer>;

/** A launcher that makes fake containers, numbered from 0, and keeps them in `made`. */
export function launchInto(made: FakeContainer[]) {
  return async () => {
    const c = fakeContainer(made.length);
    made.push(c);
    return c.live;
  };
}

/** A launcher whose starts finish when the test says, recording how many were in flight at once. */
export function gatedLauncher() {
  const made: FakeContainer[] = [];
  const pending: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const launch = async () => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise<void>((resolve) => pending.push(resolve));
    inFlight -= 1;
    const c = fakeContainer(made.length);
    made.push(c);
    return c.live;
  };
  /** Lets every start finish, the ones the pool begins meanwhile too; a pool that never stops starting fails. */
  const finishAll = async (maxTurns = 10_000) => {
    for (let turn = 0; pending.length > 0 || inFlight > 0; turn += 1) {
      if (turn >= maxTurns) throw new Error(`the pool was still starting containers after ${maxTurns} turns`);
      for (const resolve of pending.splice(0)) resolve();
      await new Promise((r) => setTimeout(r, 0));
    }
  };
  return { launch, made, finishAll, mostInFlight: () => mostInFlight, inFlight: () => inFlight };
}
