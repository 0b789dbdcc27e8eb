// The live TPS chart: one line per broker (put TPS solid, get TPS dashed) on a canvas.

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];

export function drawTps(canvas, points) {
  const ctx = canvas.getContext('2d');
  const w = canvas.width;
  const hgt = canvas.height;
  ctx.clearRect(0, 0, w, hgt);
  ctx.font = '11px sans-serif';
  ctx.fillStyle = '#555';
  if (points.length === 0) {
    ctx.fillText('waiting for the first sample', 10, 20);
    return;
  }
  const names = [...new Set(points.flatMap((p) => Object.keys(p.brokers)))].sort();
  let max = 1;
  for (const p of points)
    for (const b of Object.values(p.brokers)) max = Math.max(max, b.putTps ?? 0, b.getTps ?? 0);
  const t0 = points[0].t;
  const span = Math.max(1, points[points.length - 1].t - t0);
  const pad = 30;
  const x = (t) => pad + ((t - t0) / span) * (w - pad - 10);
  const y = (v) => hgt - 20 - (v / max) * (hgt - 35);
  ctx.strokeStyle = '#ccc';
  ctx.beginPath();
  ctx.moveTo(pad, 10);
  ctx.lineTo(pad, hgt - 20);
  ctx.lineTo(w - 10, hgt - 20);
  ctx.stroke();
  ctx.fillText(String(Math.round(max)), 2, 14);
  ctx.fillText('0', 2, hgt - 20);
  names.forEach((name, i) => {
    ctx.strokeStyle = COLORS[i % COLORS.length];
    for (const [field, dash] of [
      ['putTps', []],
      ['getTps', [4, 3]],
    ]) {
      ctx.setLineDash(dash);
      ctx.beginPath();
      let started = false;
      for (const p of points) {
        const v = p.brokers[name]?.[field];
        if (v === null || v === undefined) continue;
        if (started) ctx.lineTo(x(p.t), y(v));
        else ctx.moveTo(x(p.t), y(v));
        started = true;
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS[i % COLORS.length];
    ctx.fillText(`${name} put ─ get ┄`, pad + 10 + i * 160, hgt - 5);
  });
}
