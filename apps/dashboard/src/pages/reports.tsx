export default function Page() {
  return <h1>reports</h1>;
}
