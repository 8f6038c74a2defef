# batch_gate.pxi -- the "busy" mark of an object whose C state a threaded
# batch is working on without the GIL.
#
# A big batch (HyperLogLog.add_many, CountMinSketch.incrby ...) may release
# the GIL while its parts run on fastrank._threads' pool, so other Python
# threads can run meanwhile.  The batch holds the object's gate from before it
# first touches the C state until it is done (enter / leave); every other
# method calls wait() right before its C call (nothing in between may run
# Python code, which could let another thread in), so each call still looks
# atomic, as when the whole call held the GIL.  A second threaded batch on
# the same object waits in enter().  Waiting blocks on a threading.Lock,
# which releases the GIL; the lock is made on first use.

import threading as _gate_threading


cdef class _BatchGate:
    cdef bint busy     # a threaded batch is running on the object
    cdef object lock   # threading.Lock held by that batch

    cdef int enter(self) except -1:
        """Mark the object busy, first waiting for a batch of another thread."""
        if self.lock is None:
            self.lock = _gate_threading.Lock()
        self.lock.acquire()
        self.busy = True
        return 0

    cdef int leave(self) except -1:
        self.busy = False
        self.lock.release()
        return 0

    cdef int wait(self) except -1:
        """Return once no threaded batch runs on the object."""
        while self.busy:
            self.lock.acquire()
            self.lock.release()
        return 0
