/* demo — the target of `make demo`: everykind (every kind of region: images,
 * a mapped data file, shared memory, a memfd, a reservation, a big buffer,
 * named regions, threads with their own malloc arenas) without the "ready"
 * line, running until killed; it removes its data file on SIGTERM. */
#define DEMO 1
#include "everykind.c"
