/* A C program built against the installed runtime through pkg-config: the
 * header's version macros, the library's dsmp_version() and the .pc file's
 * Version (argv[1]) must agree. */
#include <dsmp/runtime/dsmprt.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  char fromMacros[32];
  snprintf(fromMacros, sizeof fromMacros, "%d.%d.%d", DSMP_VERSION_MAJOR,
           DSMP_VERSION_MINOR, DSMP_VERSION_PATCH);
  const char *library = dsmp_version();
  if (argc != 2 || strcmp(fromMacros, DSMP_VERSION_STRING) != 0 ||
      strcmp(library, DSMP_VERSION_STRING) != 0 ||
      strcmp(argv[1], DSMP_VERSION_STRING) != 0) {
    fprintf(stderr,
            "version mismatch: macros %s, string %s, library %s, pc %s\n",
            fromMacros, DSMP_VERSION_STRING, library, argc > 1 ? argv[1] : "?");
    return 1;
  }
  printf("dsmprt %s via pkg-config\n", library);
  return 0;
}
