// Preloaded into a bench server (node --import) by bench/tools/allocations.mjs: answers the
// tool's IPC requests to start and stop counting what the server allocates and collects.
// Counting: V8's GCProfiler (the heap's used size before and after every collection, so the
// bytes allocated between two points) and, when asked, the sampling heap profiler with the
// objects every collection freed included (which function allocated them).
import { Session } from 'node:inspector/promises';
import { GCProfiler, getHeapStatistics, setFlagsFromString } from 'node:v8';

if (process.env.ALLOC_V8_FLAGS) setFlagsFromString(process.env.ALLOC_V8_FLAGS);

let counting;
process.on('message', async (message) => {
  if (message?.type === 'alloc-start') {
    const session = message.sample ? new Session() : undefined;
    if (session !== undefined) {
      session.connect();
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 128,
        includeObjectsCollectedByMinorGC: true,
        includeObjectsCollectedByMajorGC: true,
      });
    }
    const profiler = new GCProfiler();
    counting = { profiler, session, used: getHeapStatistics().used_heap_size, cpu: process.cpuUsage() };
    profiler.start();
    process.send({ type: 'alloc-started', id: message.id });
  } else if (message?.type === 'alloc-stop') {
    const { profiler, session, used, cpu } = counting;
    const usedAtEnd = getHeapStatistics().used_heap_size;
    const cpuUsed = process.cpuUsage(cpu);
    const { statistics } = profiler.stop();
    let allocated = 0;
    let last = used;
    const collections = {};
    let gcMicros = 0;
    let scavengeMicros = 0;
    let survived = 0; // by scavenges: what they copied (kept in the young generation or promoted)
    for (const gc of statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - last;
      last = gc.afterGC.heapStatistics.usedHeapSize;
      collections[gc.gcType] = (collections[gc.gcType] ?? 0) + 1;
      gcMicros += gc.cost;
      if (gc.gcType === 'Scavenge') {
        scavengeMicros += gc.cost;
        survived += gc.afterGC.heapStatistics.usedHeapSize - (gc.beforeGC.heapStatistics.usedHeapSize - young(gc.beforeGC));
      }
    }
    allocated += usedAtEnd - last;
    const sites = session === undefined ? undefined : bySite((await session.post('HeapProfiler.stopSampling')).profile);
    session?.disconnect();
    process.send({
      type: 'alloc',
      id: message.id,
      allocated,
      collections,
      gcMicros,
      scavengeMicros,
      survived,
      cpuMicros: cpuUsed.user + cpuUsed.system,
      sites,
    });
  }
});

/** Bytes in the young generation (new space and its large objects). */
const young = (at) => at.heapSpaceStatistics.reduce((n, space) => (space.spaceName.startsWith('new_') ? n + space.spaceUsedSize : n), 0);

/** Sampled bytes by allocating function (name, file:line). */
function bySite(profile) {
  const sites = {};
  (function walk(node) {
    if (node.selfSize > 0) {
      const f = node.callFrame;
      const name = `${f.functionName || '(anon)'} ${f.url.replace(/.*\/(packages|node_modules|bench)\//, '$1/')}:${f.lineNumber + 1}`;
      sites[name] = (sites[name] ?? 0) + node.selfSize;
    }
    for (const child of node.children) walk(child);
  })(profile.head);
  return sites;
}
