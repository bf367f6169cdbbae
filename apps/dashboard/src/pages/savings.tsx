export default function Page() {
  return <h1>savings</h1>;
}
