import { Bench } from "tinybench";

/**
 * Median time in ms of each function of `fns` over `runs` rounds (tinybench
 * times each round, after a warm-up in the first). Each round runs every
 * function once, in turn, so a noisy neighbour slows all of them alike and
 * their ratios hold on a shared machine.
 */
export function medians(runs, fns) {
  const samples = fns.map(() => []);
  for (let round = 0; round < runs; round++) {
    const bench = new Bench({ iterations: 1, time: 0, warmup: round === 0, warmupIterations: 1, warmupTime: 0 });
    fns.forEach((fn, i) => bench.add(String(i), fn));
    bench.runSync();
    bench.tasks.forEach((task, i) => samples[i].push(task.result.latency.p50));
  }
  return samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
}
