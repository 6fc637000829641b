/*===- artifact_allocator.c - The buffer cache linked into model.so -----===*\
|*                                                                            *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The allocator every artifact links: the lowered code calls                 *|
|* _mlir_memref_to_llvm_alloc/_free (finalize-memref-to-llvm's generic        *|
|* allocation functions), and buffers of 64 KiB and more go back to a cache   *|
|* instead of to the C library. Each run allocates the same sizes in the      *|
|* same order, so from the second run on no large buffer is mapped, faulted   *|
|* in and zeroed by the kernel again (ppocr_det_v4 spent 17 % of its run time *|
|* in page faults; onnxruntime keeps an arena for the same reason).           *|
|*                                                                            *|
|* The build compiles it to LLVM IR once per CPU target (no headers, so it    *|
|* compiles for any of them); linkSharedLibrary compiles that IR to an object *|
|* for the artifact's target in-process and links it in (CPUTarget.cpp).      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

typedef __SIZE_TYPE__ size_t;
extern void *malloc(size_t);
extern void free(void *);

#define HIDDEN __attribute__((visibility("hidden")))
enum { kHeader = 16, kSlots = 256 };
static const size_t kCachedMin = 64 * 1024;
static const size_t kMaxCachedBytes = (size_t)4 << 30;

static struct {
  char *block;
  size_t size;
} slots[kSlots];
static size_t cachedBytes;
static int lock;

static void acquire(void) {
  while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
    ;
}
static void release(void) { __atomic_clear(&lock, __ATOMIC_RELEASE); }

/* size is stored in front of the block: free needs it. */
HIDDEN void *_mlir_memref_to_llvm_alloc(size_t size) {
  if (size >= kCachedMin) {
    acquire();
    for (int i = 0; i < kSlots; ++i)
      if (slots[i].block && slots[i].size == size) {
        char *block = slots[i].block;
        slots[i].block = 0;
        cachedBytes -= size;
        release();
        return block + kHeader;
      }
    release();
  }
  char *block = (char *)malloc(size + kHeader);
  if (!block)
    return 0;
  *(size_t *)block = size;
  return block + kHeader;
}

HIDDEN void _mlir_memref_to_llvm_free(void *pointer) {
  if (!pointer)
    return;
  char *block = (char *)pointer - kHeader;
  size_t size = *(size_t *)block;
  if (size >= kCachedMin) {
    acquire();
    if (cachedBytes + size <= kMaxCachedBytes)
      for (int i = 0; i < kSlots; ++i)
        if (!slots[i].block) {
          slots[i].block = block;
          slots[i].size = size;
          cachedBytes += size;
          release();
          return;
        }
    release();
  }
  free(block);
}

/* The runtime calls this when it frees the model: the cache is emptied. */
void dsmp_release_buffers(void) {
  acquire();
  for (int i = 0; i < kSlots; ++i)
    if (slots[i].block) {
      free(slots[i].block);
      slots[i].block = 0;
    }
  cachedBytes = 0;
  release();
}
