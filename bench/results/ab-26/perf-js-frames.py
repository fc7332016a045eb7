# issue #26, seventh pass: perf samples (perf script -F comm,ip,sym) by innermost JavaScript frame; see perf-seventh-pass.txt
# usage: python3 perf-js-frames.py SCRIPT.txt US_PER_SAMPLE [TOP_FRAMES]
import collections,re,sys
f=sys.argv[1]; us_per_sample=float(sys.argv[2])
samples=[];cur=None
for line in open(f):
    if not line.strip(): continue
    if not line.startswith((" ","\t")):
        if cur is not None: samples.append((comm,cur))
        comm=line.split()[0] if line.strip() else "?"
        cur=[]
        continue
    parts=line.strip().split(None,1)
    cur.append(parts[1] if len(parts)>1 else "?")
if cur is not None: samples.append((comm,cur))
byfile=collections.Counter(); byfn=collections.Counter()
for comm,s in samples:
    if comm!="MainThread": byfile["<worker>"]+=1; continue
    if not s: continue
    if "[k]" in s[0] or s[0].startswith(("_raw","finish_task","entry_SYSCALL")) : pass
    js=next((fr for fr in s if "JS:" in fr),None)
    leaf=s[0]
    if js is None:
        byfile["<no js: "+("kernel" if re.match(r"^[a-z_0-9.]+$",leaf.split("+")[0]) and not leaf.startswith(("uv_","uv__")) else "native")+">"]+=1; continue
    m=re.search(r"(file://)?(/work/main/)?(\S+?):\d+:\d+",js)
    path=m.group(3) if m else js
    path=re.sub(r"node_modules/.pnpm/[^/]+/node_modules/","",path)
    mod=path
    if path.startswith("effect/"): mod="effect/"+path.split("/")[-1]
    if path.startswith("undici/"): mod="undici"
    if path.startswith("node:"): mod="node:"+path.split(":")[1].split("/")[-1]
    byfile[mod]+=1
    byfn[re.sub(r"/work/main/|file://|node_modules/.pnpm/[^/]+/node_modules/","",js)[:100]]+=1
tot=sum(byfile.values())
print("total samples",tot, "us/req", tot*us_per_sample)
for k,v in byfile.most_common(40): print("%6.2f us  %s"%(v*us_per_sample,k))
if len(sys.argv)>3:
    for k,v in byfn.most_common(int(sys.argv[3])): print("%6.2f us  %s"%(v*us_per_sample,k))
