import os
import sys
import time

end = time.monotonic() + float(sys.argv[1])
last = os.statvfs("/dev/shm").f_bfree
ev = []
while time.monotonic() < end:
    f = os.statvfs("/dev/shm").f_bfree
    if f != last:
        if 60 <= f - last <= 1100:
            ev.append((round(time.monotonic(), 3), f - last))
        last = f
    time.sleep(0.0001)
print("outside releases", ev)
