/// \file nsc/nsc.hpp
/// Umbrella header for the nsc core: everything except the optional Eigen backend
/// (nsc/spectral/eigen_backend.hpp, target nsc::eigen) and the readers in nsc/io/ (the Hugging
/// Face config reader needs nlohmann-json).
#ifndef NSC_NSC_HPP
#define NSC_NSC_HPP

#include <nsc/config.hpp>
#include <nsc/error_handling.hpp>

#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>
#include <nsc/spectral/psi.hpp>

#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>

#endif // NSC_NSC_HPP
