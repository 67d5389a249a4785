"""Prints the import graph of the engine's top-level modules (code references `crate::m`,
comments and test modules excluded) and its strongly connected components."""
import os,re,collections,sys
root=sys.argv[1] if len(sys.argv)>1 else 'crates/unitxt/src'
os.chdir(root)
mods=sorted(set(m[:-3] if m.endswith('.rs') else m for m in os.listdir('.') if m!='lib.rs' and (m.endswith('.rs') or os.path.isdir(m))))
def strip_tests(src):
    i=src.find('#[cfg(test)]\nmod tests')
    return src if i<0 else src[:i]
g=collections.defaultdict(set); why=collections.defaultdict(list)
for m in mods:
    paths=[m+'.rs'] if os.path.isfile(m+'.rs') else []
    if os.path.isdir(m):
        for r,_,fs in os.walk(m): paths+=[os.path.join(r,f) for f in fs if f.endswith('.rs')]
    for p in paths:
        b=os.path.basename(p)
        if 'tests' in b or b=='testutil.rs': continue
        src=strip_tests(open(p).read())
        src='\n'.join(l.split('//')[0] if not l.strip().startswith('//') else '' for l in src.splitlines())
        refs=re.findall(r'crate::(\w+)',src)
        for grp in re.findall(r'crate::\{([^;]*?)\};',src,re.S):
            refs+=re.findall(r'\b(\w+)\b',grp)
        for t in refs:
            if t in mods and t!=m and t!='testutil': g[m].add(t); why[(m,t)].append(p)
for m in mods: print(f'{m:15} -> {" ".join(sorted(g[m]))}')
sys.setrecursionlimit(10000)
idx={};low={};st=[];on=set();res=[];c=[0]
def sc(v):
    idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in g[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        res.append(comp)
for m in mods:
    if m not in idx: sc(m)
cyc=[sorted(r) for r in res if len(r)>1]
print('cycles:',cyc)
if '-v' in sys.argv:
    for r in cyc:
        for a in r:
            for b in sorted(g[a]):
                if b in r: print(f'  {a} -> {b}: {sorted(set(why[(a,b)]))}')
