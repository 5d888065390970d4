// Types of parse-prometheus-text-format (it ships none): the families of a text exposition.
declare module 'parse-prometheus-text-format' {
  interface Family {
    name: string;
    help: string;
    type: string;
    metrics: { value: string; labels?: Record<string, string> }[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
