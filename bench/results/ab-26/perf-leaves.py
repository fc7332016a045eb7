# issue #26, seventh pass: leaf symbols of the samples whose innermost JavaScript frame matches a pattern; see perf-seventh-pass.txt
# usage: python3 perf-leaves.py SCRIPT.txt PATTERN US_PER_SAMPLE [TOP]
import collections,re,sys
f=sys.argv[1]; pat=re.compile(sys.argv[2]); us=float(sys.argv[3])
samples=[];cur=None
for line in open(f):
    if not line.strip(): continue
    if not line.startswith((" ","\t")):
        if cur is not None: samples.append(cur)
        cur=[]; continue
    parts=line.strip().split(None,1); cur.append(parts[1] if len(parts)>1 else "?")
if cur: samples.append(cur)
c=collections.Counter()
for s in samples:
    js=next((fr for fr in s if "JS:" in fr),None)
    if js and pat.search(js): c[s[0][:110]]+=1
print("total %.2f us"%(sum(c.values())*us))
for k,v in c.most_common(int(sys.argv[4]) if len(sys.argv)>4 else 15): print("%6.2f  %s"%(v*us,k))
