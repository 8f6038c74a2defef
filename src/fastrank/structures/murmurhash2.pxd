# murmurhash2.pxd -- declaration of the 32-bit MurmurHash2 (murmurhash2.h)
# that the Count-Min Sketch and Top-K share; cms.pxi exposes it as
# murmurhash2().
from libc.stdint cimport uint32_t


cdef extern from "murmurhash2.h" nogil:
    uint32_t fr_murmur2(const void *key, size_t len, uint32_t seed)
