# Generates testdata/logistic/diabetes_like.csv (python3 diabetes_like.py): 800 synthetic
# rows shaped like a diabetes table, with pregnancies 0 for every man, so that the
# pregnancies and sex coefficients are correlated (docs/SAMPLERS.md, "Non-private HMC:
# a dense metric"). Python's random module with seed 7; no real person is in it.
import random, math
random.seed(7)
rows=[]
for i in range(800):
    sex = 'F' if random.random()<0.55 else 'M'
    preg = min(17, int(random.expovariate(1/3.5))) if sex=='F' else 0
    age = int(min(85, max(21, random.gauss(33+1.2*preg, 10))))
    glu = min(199, max(50, random.gauss(120, 30)))
    bmi = min(60, max(15, random.gauss(32, 7)))
    eta = -8.0 + 0.035*glu + 0.08*bmi + 0.02*age + 0.12*preg + (0.3 if sex=='M' else 0)
    y = 1 if random.random() < 1/(1+math.exp(-eta)) else 0
    rows.append((preg, sex, glu, bmi, age, y))
with open("diabetes_like.csv", "w") as f:
    f.write('pregnancies,sex,glucose,bmi,age,outcome\n')
    for r in rows: f.write('%d,%s,%.0f,%.1f,%d,%d\n'%r)
