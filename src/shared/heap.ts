// A sync is a long run whose live JavaScript heap stays small (a batch of bodies in flight), but
// it allocates a parsed body per request. With its default heap limit on a machine with plenty of
// memory, V8 lets that garbage grow the heap to several times the live data before it collects;
// asking it to favour size keeps the heap near the live data without slowing the sync.
//
// The flag is read by V8's heap-growing heuristics as it goes, so setting it at run time (before
// the crawl allocates) takes effect: the benchmark measures it that way too.

import { setFlagsFromString } from 'node:v8';

export function preferSmallHeap(): void {
  setFlagsFromString('--optimize-for-size');
}
