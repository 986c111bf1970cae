/* A minimal FMI 3.0 co-simulation master in C, for running every fmi3 entry point of
 * our runtime under valgrind (ci/memcheck.sh; ci/fmi3_plans.py writes the plans).
 * Python under valgrind is too slow and noisy, and the `fmi` crate's FMI 3.0 import
 * has no FMU-state calls: this drives them directly.
 *
 * Usage: fmi3_run PLAN...   (each PLAN one FMU, run in turn in this process)
 * PLAN, one item per line:
 *   library path; resource path (the folder, with a trailing '/'); instantiation token;
 *   steps; step size;
 *   then five lists, each "nvr nValues vr...": the Float64, Int32 and Boolean outputs,
 *   the Float64 inputs (read, then written back), the UInt64 structural parameters.
 * Per FMU: a Model Exchange instantiation returns NULL; an instance is configured
 * (sizes read, set to themselves, a changed size refused, reset), initialized, its
 * inputs read and written back, stepped with every output read after each step, its
 * state taken, serialized, deserialized and restored halfway, continuing bit for bit;
 * every output's dependencies queried; refused calls (unknown value reference, wrong
 * nValues, NULL arrays, a Float32 read, an early step); reset, two steps, terminate,
 * free; a second instance freed straight away.
 * Exit codes: 0 ok, 1 bad usage or plan, 2 library, 3 instantiate, 4 a call that must
 * succeed failed, 5 a refused call succeeded, 6 the restored state diverged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

typedef void* I;
typedef unsigned VR;
enum { OK = 0, WARNING = 1, DISCARD = 2, ERROR = 3 };

static int quiet = 0; /* while refused calls are made on purpose */

static void logger(void* env, int status, const char* category, const char* message) {
  (void)env;
  if (status > WARNING && !quiet) fprintf(stderr, "  [%s] %s\n", category, message);
}

typedef struct {
  size_t nvr, nvalues;
  VR* vr;
} List;

static int read_list(FILE* f, List* l) {
  if (fscanf(f, "%zu %zu", &l->nvr, &l->nvalues) != 2) return 0;
  l->vr = calloc(l->nvr + 1, sizeof *l->vr);
  for (size_t i = 0; i < l->nvr; i++)
    if (fscanf(f, "%u", &l->vr[i]) != 1) return 0;
  return 1;
}

static char* line(FILE* f, char* buf, int n) {
  if (!fgets(buf, n, f)) return NULL;
  buf[strcspn(buf, "\r\n")] = 0;
  return buf;
}

#define SYM(R, name, args)                                  \
  R(*name) args = (R(*) args)dlsym(lib, #name);             \
  if (!name) {                                              \
    fprintf(stderr, "%s: missing %s\n", plan_path, #name);  \
    return 2;                                               \
  }
#define MUST(call)                                                              \
  if ((call) > WARNING) {                                                       \
    fprintf(stderr, "%s: %s failed (line %d)\n", plan_path, #call, __LINE__);   \
    return 4;                                                                   \
  }
#define REFUSED(call)                                                                   \
  do {                                                                                  \
    quiet = 1;                                                                          \
    int s_ = (call);                                                                    \
    quiet = 0;                                                                          \
    if (s_ != ERROR) {                                                                  \
      fprintf(stderr, "%s: %s returned %d, not fmi3Error\n", plan_path, #call, s_);    \
      return 5;                                                                         \
    }                                                                                   \
    MUST(fmi3Reset(c));                                                                 \
  } while (0)

typedef void (*Log)(void*, int, const char*, const char*);

static int run(const char* plan_path) {
  FILE* plan = fopen(plan_path, "r");
  if (!plan) { fprintf(stderr, "cannot open %s\n", plan_path); return 1; }
  static char path[4096], res[4096], token[256], tmp[256];
  if (!line(plan, path, sizeof path) || !line(plan, res, sizeof res) || !line(plan, token, sizeof token)) return 1;
  if (!line(plan, tmp, sizeof tmp)) return 1;
  int steps = atoi(tmp);
  if (!line(plan, tmp, sizeof tmp)) return 1;
  double h = strtod(tmp, NULL);
  List fo, io, bo, fi, sz;
  if (!read_list(plan, &fo) || !read_list(plan, &io) || !read_list(plan, &bo) || !read_list(plan, &fi) ||
      !read_list(plan, &sz)) {
    fprintf(stderr, "%s: bad plan\n", plan_path);
    return 1;
  }
  fclose(plan);

  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  SYM(I, fmi3InstantiateCoSimulation,
      (const char*, const char*, const char*, bool, bool, bool, bool, const VR*, size_t, void*, Log, void*))
  SYM(I, fmi3InstantiateModelExchange, (const char*, const char*, const char*, bool, bool, void*, Log))
  SYM(int, fmi3SetDebugLogging, (I, bool, size_t, const char* const*))
  SYM(int, fmi3EnterConfigurationMode, (I))
  SYM(int, fmi3ExitConfigurationMode, (I))
  SYM(int, fmi3GetUInt64, (I, const VR*, size_t, uint64_t*, size_t))
  SYM(int, fmi3SetUInt64, (I, const VR*, size_t, const uint64_t*, size_t))
  SYM(int, fmi3EnterInitializationMode, (I, bool, double, double, bool, double))
  SYM(int, fmi3ExitInitializationMode, (I))
  SYM(int, fmi3DoStep, (I, double, double, bool, bool*, bool*, bool*, double*))
  SYM(int, fmi3GetFloat64, (I, const VR*, size_t, double*, size_t))
  SYM(int, fmi3SetFloat64, (I, const VR*, size_t, const double*, size_t))
  SYM(int, fmi3GetFloat32, (I, const VR*, size_t, float*, size_t))
  SYM(int, fmi3GetInt32, (I, const VR*, size_t, int32_t*, size_t))
  SYM(int, fmi3GetBoolean, (I, const VR*, size_t, bool*, size_t))
  SYM(int, fmi3GetFMUState, (I, void**))
  SYM(int, fmi3SetFMUState, (I, void*))
  SYM(int, fmi3FreeFMUState, (I, void**))
  SYM(int, fmi3SerializedFMUStateSize, (I, void*, size_t*))
  SYM(int, fmi3SerializeFMUState, (I, void*, uint8_t*, size_t))
  SYM(int, fmi3DeserializeFMUState, (I, const uint8_t*, size_t, void**))
  SYM(int, fmi3GetNumberOfVariableDependencies, (I, VR, size_t*))
  SYM(int, fmi3GetVariableDependencies, (I, VR, size_t*, VR*, size_t*, int*, size_t))
  SYM(int, fmi3Reset, (I))
  SYM(int, fmi3Terminate, (I))
  SYM(void, fmi3FreeInstance, (I))

  quiet = 1;
  I me = fmi3InstantiateModelExchange("me", token, res, false, false, NULL, logger);
  quiet = 0;
  if (me != NULL) {
    fprintf(stderr, "%s: a Model Exchange instance was made\n", plan_path);
    return 5;
  }
  I c = fmi3InstantiateCoSimulation("run", token, res, false, true, false, false, NULL, 0, NULL, logger, NULL);
  if (!c) return 3;
  const char* cats[] = {"logEvents", "logStatusError"};
  MUST(fmi3SetDebugLogging(c, true, 2, cats));

  /* configuration: the sizes read, set to themselves; another size refused */
  if (sz.nvr) {
    uint64_t* n = calloc(sz.nvalues, sizeof *n);
    MUST(fmi3EnterConfigurationMode(c));
    MUST(fmi3GetUInt64(c, sz.vr, sz.nvr, n, sz.nvalues));
    MUST(fmi3SetUInt64(c, sz.vr, sz.nvr, n, sz.nvalues));
    n[0] += 1;
    REFUSED(fmi3SetUInt64(c, sz.vr, sz.nvr, n, sz.nvalues));
    MUST(fmi3EnterConfigurationMode(c));
    MUST(fmi3ExitConfigurationMode(c));
    free(n);
  } else {
    REFUSED(fmi3EnterConfigurationMode(c));
  }
  REFUSED(fmi3DoStep(c, 0.0, h, false, NULL, NULL, NULL, NULL));

  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  MUST(fmi3ExitInitializationMode(c));
  double* in = calloc(fi.nvalues + 1, sizeof *in);
  MUST(fmi3GetFloat64(c, fi.vr, fi.nvr, in, fi.nvalues));
  MUST(fmi3SetFloat64(c, fi.vr, fi.nvr, in, fi.nvalues));

  size_t nf = fo.nvalues, ni = io.nvalues, nb = bo.nvalues;
  double* f = calloc((size_t)(steps + 1) * (nf + 1), sizeof *f);
  int32_t* is = calloc((size_t)(steps + 1) * (ni + 1), sizeof *is);
  bool* bs = calloc((size_t)(steps + 1) * (nb + 1), sizeof *bs);
  double* f2 = calloc(nf + 1, sizeof *f2);
  int32_t* i2 = calloc(ni + 1, sizeof *i2);
  bool* b2 = calloc(nb + 1, sizeof *b2);
  int half = steps / 2;
  uint8_t* blob = NULL;
  size_t blob_n = 0;
  for (int k = 0; k < steps; k++) {
    bool event, term, early;
    double last;
    MUST(fmi3DoStep(c, k * h, h, false, &event, &term, &early, &last));
    if (early || term || event) { fprintf(stderr, "%s: an early return\n", plan_path); return 4; }
    MUST(fmi3GetFloat64(c, fo.vr, fo.nvr, f + k * (nf + 1), nf));
    MUST(fmi3GetInt32(c, io.vr, io.nvr, is + k * (ni + 1), ni));
    MUST(fmi3GetBoolean(c, bo.vr, bo.nvr, bs + k * (nb + 1), nb));
    if (k + 1 == half) {
      void* s = NULL;
      MUST(fmi3GetFMUState(c, &s));
      MUST(fmi3SerializedFMUStateSize(c, s, &blob_n));
      blob = malloc(blob_n);
      MUST(fmi3SerializeFMUState(c, s, blob, blob_n));
      MUST(fmi3FreeFMUState(c, &s));
    }
  }
  /* back to the saved state through a deserialized copy: the same outputs again */
  if (blob) {
    void* s = NULL;
    MUST(fmi3DeserializeFMUState(c, blob, blob_n, &s));
    MUST(fmi3SetFMUState(c, s));
    MUST(fmi3FreeFMUState(c, &s));
    free(blob);
    for (int k = half; k < steps; k++) {
      bool event, term, early;
      double last;
      MUST(fmi3DoStep(c, k * h, h, false, &event, &term, &early, &last));
      MUST(fmi3GetFloat64(c, fo.vr, fo.nvr, f2, nf));
      MUST(fmi3GetInt32(c, io.vr, io.nvr, i2, ni));
      MUST(fmi3GetBoolean(c, bo.vr, bo.nvr, b2, nb));
      if (memcmp(f2, f + k * (nf + 1), nf * sizeof *f2) || memcmp(i2, is + k * (ni + 1), ni * sizeof *i2) ||
          memcmp(b2, bs + k * (nb + 1), nb * sizeof *b2)) {
        fprintf(stderr, "%s: step %d after the restored state differs\n", plan_path, k);
        return 6;
      }
    }
  }
  /* every output's dependencies */
  List* outs[] = {&fo, &io, &bo};
  for (int t = 0; t < 3; t++)
    for (size_t i = 0; i < outs[t]->nvr; i++) {
      size_t n = 0;
      MUST(fmi3GetNumberOfVariableDependencies(c, outs[t]->vr[i], &n));
      size_t* e1 = calloc(n + 1, sizeof *e1);
      size_t* e2 = calloc(n + 1, sizeof *e2);
      VR* ind = calloc(n + 1, sizeof *ind);
      int* kinds = calloc(n + 1, sizeof *kinds);
      MUST(fmi3GetVariableDependencies(c, outs[t]->vr[i], e1, ind, e2, kinds, n));
      free(e1), free(e2), free(ind), free(kinds);
    }
  /* refused calls, each followed by a reset (an error leaves the instance in Error) */
  VR bad = 0xffffffffu;
  double d[8];
  float fl[1];
  REFUSED(fmi3GetFloat64(c, &bad, 1, d, 1));
  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  if (fo.nvr) REFUSED(fmi3GetFloat64(c, fo.vr, 1, d, fo.nvalues + 1));
  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  REFUSED(fmi3GetFloat64(c, NULL, 1, d, 1));
  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  if (fo.nvr) REFUSED(fmi3GetFloat64(c, fo.vr, 1, NULL, 3));
  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  REFUSED(fmi3GetFloat32(c, fo.vr, fo.nvr ? 1 : 0, fl, 1));
  /* a second short run, terminate, free */
  MUST(fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0));
  MUST(fmi3ExitInitializationMode(c));
  for (int k = 0; k < 2 && k < steps; k++) {
    bool event, term, early;
    double last;
    MUST(fmi3DoStep(c, k * h, h, false, &event, &term, &early, &last));
  }
  MUST(fmi3Terminate(c));
  fmi3FreeInstance(c);
  I c2 = fmi3InstantiateCoSimulation("again", token, res, false, false, false, false, NULL, 0, NULL, logger, NULL);
  if (!c2) return 3;
  fmi3FreeInstance(c2);
  free(in), free(f), free(is), free(bs), free(f2), free(i2), free(b2);
  free(fo.vr), free(io.vr), free(bo.vr), free(fi.vr), free(sz.vr);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: fmi3_run PLAN...\n"); return 1; }
  for (int i = 1; i < argc; i++) {
    int rc = run(argv[i]);
    if (rc) { fprintf(stderr, "fmi3_run: %s failed (exit %d)\n", argv[i], rc); return rc; }
  }
  printf("fmi3_run: %d FMUs through every FMI 3.0 call family\n", argc - 1);
  return 0;
}
