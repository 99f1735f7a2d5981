#include "trace/trace-hw_ndisbench.h"
