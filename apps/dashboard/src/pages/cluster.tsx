export default function Page() {
  return <h1>cluster</h1>;
}
