/* CNI cachable queue (Mukherjee et al.): a ring of N entries with a message
 * valid bit per entry encoded by sense reverse, a head pointer written only
 * by the receiver, and the sender's lazy copy shadow_head, refreshed only
 * when the queue looks full. Memory is coherent (sequentially consistent
 * between the two processes; the implementation orders with release/acquire).
 * Checked: no deadlock, messages arrive in order exactly once, and with
 * `-N done` that every message is eventually received.
 * -DBROKEN: the receiver does not flip its sense when it wraps: it then
 * takes a stale entry for a new message, a duplicate (the checker must
 * find it). */
#define N 2
#define MSGS 5

byte data[N];
bit  valid[N];
byte head = 0;                /* receiver's pointer (its own cache line) */
bool done = false;

active proctype sender() {
	byte tail = 0, shadow = 0, m = 1; bit sense = 1;
	do
	:: m > MSGS -> break
	:: m <= MSGS ->
		/* full if tail - shadow == N (pointers count modulo 2N) */
		do
		:: ((tail + 2*N - shadow) % (2*N)) < N -> break
		:: else -> shadow = head       /* lazy: read the real head only now */
		od;
		data[tail % N] = m;
		valid[tail % N] = sense;       /* publish: valid bit written last */
		tail = (tail + 1) % (2*N);
		if :: tail % N == 0 -> sense = 1 - sense :: else fi;
		m++
	od
}

active proctype receiver() {
	byte h = 0, expect = 1; bit sense = 1;
	do
	:: expect > MSGS -> break
	:: valid[h % N] == sense ->
		assert(data[h % N] == expect);
		expect++;
		h = (h + 1) % (2*N);
#ifndef BROKEN
		if :: h % N == 0 -> sense = 1 - sense :: else fi;
#endif
		head = h                       /* lets the sender reuse the entry */
	od;
	done = true
}

ltl done { <> done }
