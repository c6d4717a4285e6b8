import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** recharts drawings for ChartPanel; this module is only ever imported lazily (its own chunk). */

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}
export type ChartRow = Record<string, string | number>;
export interface ChartProps {
  kind: 'line' | 'bar';
  rows: ChartRow[];
  /** The row key on the x axis (a time label, a name) and its column heading in the table view. */
  xKey: string;
  xLabel: string;
  series: ChartSeries[];
  height?: number;
}

export default function Chart({ kind, rows, xKey, series, height = 260 }: ChartProps) {
  const common = (
    <>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey={xKey} tick={{ fontSize: 12 }} minTickGap={16} />
      <YAxis allowDecimals={false} tick={{ fontSize: 12 }} width={48} />
      <Tooltip />
      <Legend />
    </>
  );
  return (
    <ResponsiveContainer width="100%" height={height}>
      {kind === 'line' ? (
        <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          {common}
          {series.map((s) => (
            <Line key={s.key} type="linear" dataKey={s.key} name={s.label} stroke={s.color} strokeWidth={2} dot={rows.length < 30} isAnimationActive={false} />
          ))}
        </LineChart>
      ) : (
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          {common}
          {series.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      )}
    </ResponsiveContainer>
  );
}
