// The FMU driver of ci/instructions/count.sh: instantiates an unpacked FMU, runs
// fmi2DoStep n times at step h, frees it. Usage: drive <fmu_dir> <model_identifier> <n> <h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
typedef void* C;
typedef struct { void (*logger)(void*, const char*, int, const char*, const char*, ...);
  void* (*alloc)(size_t, size_t); void (*freem)(void*); void (*stepFinished)(void*, int); void* env; } CB;
static void logger(void* e, const char* n, int s, const char* c, const char* m, ...) { va_list a; va_start(a, m); if (s > 1) { vfprintf(stderr, m, a); fputc(10, stderr); } va_end(a); }
int main(int argc, char** argv) {
  char path[4096], guid[256] = {0}, uri[4096];
  snprintf(path, sizeof path, "%s/modelDescription.xml", argv[1]);
  FILE* f = fopen(path, "r"); char buf[1 << 16]; size_t n = fread(buf, 1, sizeof buf - 1, f); buf[n] = 0; fclose(f);
  char* g = strstr(buf, "guid=\""); g += 6; char* e = strchr(g, '"'); memcpy(guid, g, e - g);
  snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", argv[1], argv[2]);
  void* so = dlopen(path, RTLD_NOW); if (!so) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  C (*inst)(const char*, int, const char*, const char*, const CB*, int, int) = dlsym(so, "fmi2Instantiate");
  int (*setup)(C, int, double, double, int, double) = dlsym(so, "fmi2SetupExperiment");
  int (*enter)(C) = dlsym(so, "fmi2EnterInitializationMode");
  int (*exitm)(C) = dlsym(so, "fmi2ExitInitializationMode");
  int (*step)(C, double, double, int) = dlsym(so, "fmi2DoStep");
  void (*freei)(C) = dlsym(so, "fmi2FreeInstance");
  CB cb = {logger, calloc, free, NULL, NULL};
  snprintf(uri, sizeof uri, "file://%s/resources", argv[1]);
  C c = inst("i", 1, guid, uri, &cb, 0, 0); if (!c) return 2;
  setup(c, 0, 0, 0.0, 0, 0); enter(c); if (exitm(c) > 1) return 3;
  int steps = atoi(argv[3]); double h = atof(argv[4]);
  for (int k = 0; k < steps; k++) if (step(c, k * h, h, 1) > 1) { fprintf(stderr, "step %d failed\n", k); return 4; }
  freei(c); return 0;
}
