#include <kiss_fftr.h>
