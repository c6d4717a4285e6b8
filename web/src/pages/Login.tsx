import { AuthForm } from './Auth';

export default function Login() {
  return <AuthForm mode="login" />;
}
