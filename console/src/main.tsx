import { render } from 'preact';

function App() {
  return <h1>Baton Console</h1>;
}

render(<App />, document.getElementById('app')!);
