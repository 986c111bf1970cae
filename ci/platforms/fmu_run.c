/* A minimal FMI 2.0 co-simulation master in C, for running our FMUs' runtime on each
 * platform (Linux x86-64 natively, Windows under Wine, Linux aarch64 under qemu) and
 * comparing the outputs bit for bit (ci/platforms.py writes the plan and compares).
 *
 * Usage: fmu_run PLAN OUT
 *        fmu_run --batch LIST   (LIST: PLAN and OUT on alternate lines; runs them in turn in
 *                                this one process, printing "EXIT_CODE PLAN" for each; exit
 *                                code 8 if any failed. Saves a Wine start per run.)
 * PLAN, one item per line:
 *   library path; fmuResourceLocation URI; GUID; steps; step size (%a or decimal);
 *   save_at (serialize the FMU state after that many steps into SAVE, -1: never);
 *   SAVE path; LOAD path (deserialize and continue from it after initialization, "-": no);
 *   start step (the step the loaded state was saved at, 0 without LOAD);
 *   n_real, then that many value references (one line); likewise Integer, Boolean;
 *   panic (1: the run has CONTACT_FMU_TEST_PANIC=fmi2Terminate, which must return fmi2Error).
 * OUT ("-": none, for timing): one line per communication point (after initialization, then after each step):
 *   the Reals as the 16 hex digits of their bits, the Integers and Booleans in decimal.
 * Exit codes: 0 ok, 1 bad usage or plan, 2 library, 3 instantiate, 4 initialization,
 * 5 step, 6 state serialization, 7 the error call did not fail.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
typedef HMODULE Lib;
static Lib lib_open(const char* p) { return LoadLibraryA(p); }
static void* lib_sym(Lib l, const char* n) { return (void*)GetProcAddress(l, n); }
#else
#include <dlfcn.h>
typedef void* Lib;
static Lib lib_open(const char* p) {
  Lib l = dlopen(p, RTLD_NOW | RTLD_LOCAL);
  if (!l) fprintf(stderr, "%s\n", dlerror());
  return l;
}
static void* lib_sym(Lib l, const char* n) { return dlsym(l, n); }
#endif

typedef void* C;
typedef struct {
  void (*logger)(void*, const char*, int, const char*, const char*, ...);
  void* (*alloc)(size_t, size_t);
  void (*freem)(void*);
  void (*stepFinished)(void*, int);
  void* env;
} Callbacks;

static void logger(void* e, const char* n, int s, const char* c, const char* m, ...) {
  va_list a;
  (void)e; (void)n; (void)c;
  va_start(a, m);
  if (s > 1) { vfprintf(stderr, m, a); fputc('\n', stderr); }
  va_end(a);
}

static char* line(FILE* f, char* buf, int n) {
  if (!fgets(buf, n, f)) return NULL;
  buf[strcspn(buf, "\r\n")] = 0;
  return buf;
}

static unsigned* vrs(FILE* f, size_t* n) {
  if (fscanf(f, "%zu", n) != 1) return NULL;
  unsigned* v = calloc(*n + 1, sizeof *v);
  for (size_t i = 0; i < *n; i++)
    if (fscanf(f, "%u", &v[i]) != 1) return NULL;
  return v;
}

#define SYM(R, name, args) R (*name) args = (R (*) args)lib_sym(lib, #name); if (!name) { fprintf(stderr, "missing %s\n", #name); return 2; }

static int run_plan(const char* plan_path, const char* out_path) {
  FILE* plan = fopen(plan_path, "r");
  if (!plan) { fprintf(stderr, "cannot open %s\n", plan_path); return 1; }
  static char path[4096], uri[4096], guid[256], save[4096], load[4096], tmp[256];
  int steps, save_at, start, panic;
  double h;
  if (!line(plan, path, sizeof path) || !line(plan, uri, sizeof uri) || !line(plan, guid, sizeof guid)) return 1;
  if (!line(plan, tmp, sizeof tmp)) return 1;
  steps = atoi(tmp);
  if (!line(plan, tmp, sizeof tmp)) return 1;
  h = strtod(tmp, NULL);
  if (!line(plan, tmp, sizeof tmp)) return 1;
  save_at = atoi(tmp);
  if (!line(plan, save, sizeof save) || !line(plan, load, sizeof load)) return 1;
  if (!line(plan, tmp, sizeof tmp)) return 1;
  start = atoi(tmp);
  size_t nr, ni, nb;
  unsigned *rv = vrs(plan, &nr), *iv = vrs(plan, &ni), *bv = vrs(plan, &nb);
  if (!rv || !iv || !bv || fscanf(plan, "%d", &panic) != 1) { fprintf(stderr, "bad plan\n"); return 1; }
  fclose(plan);

  Lib lib = lib_open(path);
  if (!lib) { fprintf(stderr, "cannot load %s\n", path); return 2; }
  SYM(C, fmi2Instantiate, (const char*, int, const char*, const char*, const Callbacks*, int, int))
  SYM(int, fmi2SetupExperiment, (C, int, double, double, int, double))
  SYM(int, fmi2EnterInitializationMode, (C))
  SYM(int, fmi2ExitInitializationMode, (C))
  SYM(int, fmi2DoStep, (C, double, double, int))
  SYM(int, fmi2GetReal, (C, const unsigned*, size_t, double*))
  SYM(int, fmi2GetInteger, (C, const unsigned*, size_t, int*))
  SYM(int, fmi2GetBoolean, (C, const unsigned*, size_t, int*))
  SYM(int, fmi2GetFMUstate, (C, void**))
  SYM(int, fmi2SetFMUstate, (C, void*))
  SYM(int, fmi2FreeFMUstate, (C, void**))
  SYM(int, fmi2SerializedFMUstateSize, (C, void*, size_t*))
  SYM(int, fmi2SerializeFMUstate, (C, void*, char*, size_t))
  SYM(int, fmi2DeSerializeFMUstate, (C, const char*, size_t, void**))
  SYM(int, fmi2Terminate, (C))
  SYM(void, fmi2FreeInstance, (C))

  Callbacks cb = {logger, calloc, free, NULL, NULL};
  C c = fmi2Instantiate("run", 1, guid, uri, &cb, 0, 0);
  if (!c) return 3;
  double t0 = start * h;
  if (fmi2SetupExperiment(c, 0, 0.0, t0, 0, 0.0) > 1 || fmi2EnterInitializationMode(c) > 1 ||
      fmi2ExitInitializationMode(c) > 1)
    return 4;
  if (strcmp(load, "-") != 0) {
    FILE* f = fopen(load, "rb");
    if (!f) return 6;
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    char* bytes = malloc(n);
    if (fread(bytes, 1, n, f) != (size_t)n) return 6;
    fclose(f);
    void* s = NULL;
    if (fmi2DeSerializeFMUstate(c, bytes, n, &s) > 1 || fmi2SetFMUstate(c, s) > 1) return 6;
    fmi2FreeFMUstate(c, &s);
    free(bytes);
  }
  /* OUT "-": read the outputs but write nothing (for timing) */
  FILE* out = strcmp(out_path, "-") != 0 ? fopen(out_path, "w") : NULL;
  if (!out && strcmp(out_path, "-") != 0) return 1;
  double* r = calloc(nr + 1, sizeof *r);
  int* ints = calloc(ni + 1, sizeof *ints);
  int* bools = calloc(nb + 1, sizeof *bools);
  for (int k = start; k <= steps; k++) {
    if (k > start && fmi2DoStep(c, (k - 1) * h, h, 1) > 1) { fprintf(stderr, "step %d failed\n", k); return 5; }
    if (fmi2GetReal(c, rv, nr, r) > 1 || fmi2GetInteger(c, iv, ni, ints) > 1 || fmi2GetBoolean(c, bv, nb, bools) > 1)
      return 5;
    if (!out) continue;
    for (size_t i = 0; i < nr; i++) { uint64_t b; memcpy(&b, &r[i], 8); fprintf(out, "%016llx ", (unsigned long long)b); }
    for (size_t i = 0; i < ni; i++) fprintf(out, "%d ", ints[i]);
    for (size_t i = 0; i < nb; i++) fprintf(out, "%d ", bools[i]);
    fputc('\n', out);
    if (k == save_at) {
      void* s = NULL;
      size_t n = 0;
      if (fmi2GetFMUstate(c, &s) > 1 || fmi2SerializedFMUstateSize(c, s, &n) > 1) return 6;
      char* bytes = malloc(n);
      if (fmi2SerializeFMUstate(c, s, bytes, n) > 1) return 6;
      FILE* f = fopen(save, "wb");
      if (!f || fwrite(bytes, 1, n, f) != n) return 6;
      fclose(f);
      free(bytes);
      fmi2FreeFMUstate(c, &s);
    }
  }
  if (out) fclose(out);
  if (panic) {
    /* run with CONTACT_FMU_TEST_PANIC=fmi2Terminate: the runtime panics in it on
       purpose; the boundary must turn that into fmi2Error (3), not abort the process */
    if (fmi2Terminate(c) != 3) { fprintf(stderr, "the test panic in fmi2Terminate did not return fmi2Error\n"); return 7; }
  } else if (fmi2Terminate(c) > 1) {
    return 5;
  }
  fmi2FreeInstance(c);
  free(rv); free(iv); free(bv); free(r); free(ints); free(bools);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--batch") == 0) {
    FILE* list = fopen(argv[2], "r");
    if (!list) { fprintf(stderr, "cannot open %s\n", argv[2]); return 1; }
    static char plan[4096], out[4096];
    int failed = 0;
    while (line(list, plan, sizeof plan) && line(list, out, sizeof out)) {
      int rc = run_plan(plan, out);
      printf("%d %s\n", rc, plan);
      fflush(stdout);
      failed |= rc != 0;
    }
    fclose(list);
    return failed ? 8 : 0;
  }
  if (argc != 3) { fprintf(stderr, "usage: fmu_run PLAN OUT | fmu_run --batch LIST\n"); return 1; }
  return run_plan(argv[1], argv[2]);
}
