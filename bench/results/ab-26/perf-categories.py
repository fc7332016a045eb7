# issue #26, seventh pass: perf samples by category (kernel, JIT code, V8 builtins and ICs, GC, ...); see perf-seventh-pass.txt
import re,sys,subprocess,collections
def rows(f):
    out=subprocess.run(["perf","report","-i",f,"-n","--sort","comm,dso,sym","--stdio"],capture_output=True,text=True).stdout
    for line in out.splitlines():
        if line.startswith("#") or not line.strip(): continue
        m=re.match(r"\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+(\S+(?: tid \d+)?)\s+(.*)",line)
        if m: yield int(m.group(2)),m.group(3),m.group(4),m.group(5).strip()
def cat(comm,dso,sym):
    if comm!="MainThread": return "worker:"+("gc" if re.search(r"Scaveng|Mark|Heap|Sweep|Evacuat|GC|Compact|Concurrent",sym) else "other")
    if dso.startswith("[kernel"): return "kernel"
    if dso.startswith("[JIT"): return "jit"
    if "libc" in dso: return "libc"
    if re.search(r"Scaveng|MarkCompact|Heap::|Sweep|Evacuat|GCTracer|MemoryAllocator|PagedSpace|NewSpace|Marking",sym): return "node:gc"
    if re.search(r"compiler::|Compile|Turbofan|Maglev|Parser|Bytecode|Deoptim",sym): return "node:compile"
    if "Builtins_" in sym and "IC" in sym: return "node:ic"
    if "Builtins_" in sym: return "node:builtins"
    return "node:runtime/other"

# usage: python3 perf-categories.py A.data B.data  (perf report over each, categories as % of samples)
res={}
for f in sys.argv[1:]:
    c=collections.Counter()
    for n,comm,dso,sym in rows(f): c[cat(comm,dso,sym)]+=n
    res[f]=c
keys=sorted(set().union(*[set(c) for c in res.values()]))
print("%-22s"%"", *["%16s"%f.split("/")[-1] for f in res])
for k in keys: print("%-22s"%k, *["%15.1f%%"%(100*res[f][k]/sum(res[f].values())) for f in res])
