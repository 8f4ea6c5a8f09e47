// v8heap.js — a node target for tests/live/test_v8.py: fills its V8 heap
// with some 50 MB of objects, strings and large arrays (large-object
// pages), prints "ready" and process.memoryUsage() as JSON, then blocks its
// only JavaScript thread for good (Atomics.wait): it allocates nothing
// more, so heapTotal stays what it printed. (V8's own threads may still
// sweep or mark; with node's default heap limits the figures held to the
// byte in every run measured, 30 and more on node 18, 20 and 22, but for
// one scavenge after the figures, settle() below, and an allocation area
// old space may take once they are read: test_v8.py's spaces().)
// "spaces" is v8.getHeapSpaceStatistics(): each space's size and used.
// With the argument "worker" a worker thread (an isolate of its own) first
// fills its heap too, sends its own heapTotal ("worker") and blocks.
'use strict';
const fs = require('fs');
const v8 = require('v8');
const { Worker } = require('worker_threads');
const keep = [];
for (let i = 0; i < 200000; i++)
	keep.push({ n: i, s: 'string ' + i, a: [i, i + 1, i + 2] });
for (let i = 0; i < 4; i++)
	keep.push(new Array(300000).fill(i)); // large-object pages
globalThis.keep = keep;

// The figures node prints are those of the instant vmscope reads: the
// script allocates nothing after they are taken. Their code runs once before, so that
// what its first run allocates (bytecode, feedback, maps: old space, map
// space) is there already; the line is written synchronously and the
// thread blocks on an array made before. (A target that printed from the
// write's callback allocated after its figures: old space's pages then
// held up to a linear allocation area more than node had counted.)
function figures(worker) {
	const m = process.memoryUsage();
	return 'ready ' + JSON.stringify({
		heapTotal: m.heapTotal,
		heapUsed: m.heapUsed,
		node: process.versions.node,
		v8: process.versions.v8,
		pointerCompression:
			process.config.variables.v8_enable_pointer_compression,
		spaces: v8.getHeapSpaceStatistics().map(sp => ({
			name: sp.space_name, size: sp.space_size,
			used: sp.space_used_size })),
		worker: worker,
	}) + '\n';
}

// Two scavenges (node runs with --expose-gc; without it, none): what
// survived the first is promoted by the second, and new space is then all
// but empty, so that what figures() allocates once it has read them (the
// JSON, its strings) cannot start another scavenge, whose promotions
// would land in old space after node counted it (once in some 70 runs
// node 18's old space held 246,896 bytes more than it had printed, its
// pages the same: that, or an allocation area taken after the figures,
// which test_v8.py's spaces() allows).
function settle() {
	if (typeof gc === 'function') {
		gc({ type: 'minor' });
		gc({ type: 'minor' });
	}
}

function ready(worker) {
	const block = new Int32Array(new SharedArrayBuffer(4));
	fs.writeSync(1, '');
	figures(worker);
	settle();
	fs.writeSync(1, figures(worker));
	Atomics.wait(block, 0, 0);
}

if (process.argv[2] === 'worker') {
	const w = new Worker(`
		const wt = require('worker_threads');
		const keep = [];
		for (let i = 0; i < 100000; i++)
			keep.push({ n: i, s: 'w ' + i });
		globalThis.keep = keep;
		wt.parentPort.postMessage(
			require('v8').getHeapStatistics().total_heap_size);
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
	`, { eval: true });
	w.on('message', total => ready(total));
} else {
	ready(null);
}
